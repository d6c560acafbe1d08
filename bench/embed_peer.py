"""ONNX Runtime from Python on the same E5 model and texts as asof's Go benchmarks: the peer of
asof's embedding backends (make bench-embed and make bench run both).

Two modes:
- --seconds S: the fixed 800-character passage BenchmarkEmbedPassages uses, in batches of 8 (as
  many at once as --workers), for S seconds.
- --texts FILE (a JSON list of strings, e.g. the chunk texts BenchmarkIndexBuild writes with
  ASOF_BENCH_TEXTS): each text embedded once, as asof embeds them by default, so the rate is the
  embedding bound of an index build on the same documents: tokenized once, sorted by token
  length (longest first), cut into batches of at most --batch texts and --batch-tokens padded
  tokens, the batches spread over --workers ONNX Runtime calls at once with --threads threads
  each (ONNX Runtime releases the GIL while it runs). --no-sort keeps the input order in fixed
  batches of --batch.

Usage: python bench/embed_peer.py MODEL_DIR [--threads N] [--workers W] [--seconds S | --texts FILE] [--device cuda]
Prints one JSON line: {"passages_per_s": ..., "passages_per_cpu_s": ... (process CPU time), "threads": ..., "workers": ..., "batch": ..., "texts": ...}.
"""
import argparse
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

# The exact text BenchmarkEmbedPassages uses (internal/embed/embed_test.go).
TEXT = ("The Bank of Russia raised its key interest rate by 100 basis points to 16 percent, "
        "citing persistent inflation and a weak rouble. ")


def plan(lengths, max_texts, max_tokens):
    """asof's embed.PlanBatches: longest first (ties in input order), each batch at most
    max_texts texts and max_tokens padded tokens, at least one text."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    out, start = [], 0
    while start < len(order):
        longest = max(1, lengths[order[start]])
        n = max(1, min(max_texts, max_tokens // longest, len(order) - start))
        out.append(order[start:start + n])
        start += n
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads per call (0: every core)")
    ap.add_argument("--workers", type=int, default=0, help="calls at once (0: cores / threads)")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--texts", help="JSON list of texts to embed once each (instead of --seconds)")
    ap.add_argument("--batch", type=int, default=32, help="most texts per call")
    ap.add_argument("--batch-tokens", type=int, default=4096, help="most padded tokens per call")
    ap.add_argument("--no-sort", action="store_true", help="input order, fixed batches of --batch")
    ap.add_argument("--onnx", default="model.onnx", help="model file in MODEL_DIR")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                    help="cuda: ONNX Runtime's CUDA provider (onnxruntime-gpu), as asof's --embed-device cuda")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    workers = args.workers or max(1, cores // max(1, args.threads))
    tok = Tokenizer.from_file(f"{args.model_dir}/tokenizer.json")
    tok.enable_truncation(512)
    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")  # as asof runs it
    providers = ["CPUExecutionProvider"]
    if args.device == "cuda":
        if hasattr(ort, "preload_dlls"):
            ort.preload_dlls()  # the CUDA and cuDNN libraries of the nvidia-* wheels beside it
        providers = ["CUDAExecutionProvider"]
    sess = ort.InferenceSession(f"{args.model_dir}/{args.onnx}", so, providers=providers)
    if sess.get_providers()[0] != providers[0]:
        raise SystemExit(f"embed_peer: asked for {providers[0]}, ONNX Runtime runs {sess.get_providers()}")
    names = [i.name for i in sess.get_inputs()]

    def run(encs):
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for i, e in enumerate(encs):
            ids[i, :len(e.ids)] = e.ids
            mask[i, :len(e.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = sess.run(None, feed)[0]
        m = mask[..., None].astype(np.float32)
        v = (out * m).sum(1) / m.sum(1)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    text = TEXT
    while len(text) < 800:
        text += text
    fixed = tok.encode_batch(["passage: " + text[:800]] * 8)
    run(fixed)  # warm up
    n, batch, began, cpu0 = 0, len(fixed), time.perf_counter(), time.process_time()
    if args.texts:
        with open(args.texts) as f:
            texts = ["passage: " + t for t in json.load(f)]
        began, cpu0 = time.perf_counter(), time.process_time()
        encs = tok.encode_batch(texts)  # once per text
        if args.no_sort:
            calls = [list(range(s, min(s + args.batch, len(texts)))) for s in range(0, len(texts), args.batch)]
        else:
            calls = plan([len(e.ids) for e in encs], args.batch, args.batch_tokens)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(lambda c: run([encs[i] for i in c]), calls))
        n, batch = len(texts), args.batch
    else:  # as BenchmarkEmbedPassages: one call of 8 × workers passages, batches of 8 at once
        with ThreadPoolExecutor(max_workers=workers) as pool:
            while time.perf_counter() - began < args.seconds:
                list(pool.map(lambda _: run(fixed), range(workers)))
                n += len(fixed) * workers
    rate = n / (time.perf_counter() - began)
    cpu = time.process_time() - cpu0  # every thread of the process: ONNX Runtime's included
    print(json.dumps({"passages_per_s": round(rate, 2), "passages_per_cpu_s": round(n / cpu, 2) if cpu > 0 else None, "threads": args.threads, "workers": workers, "batch": batch,
                      "batch_tokens": args.batch_tokens, "sorted": bool(args.texts) and not args.no_sort, "texts": n,
                      "model": os.path.basename(os.path.normpath(args.model_dir)), "onnxruntime": ort.__version__, "device": args.device}))


if __name__ == "__main__":
    main()
