"""ONNX Runtime from Python on the same E5 model and texts as BenchmarkEmbedPassages: the peer
of asof's embedding backends (make bench-embed and make bench run both).

With --texts FILE (a JSON list of strings, e.g. the chunk texts BenchmarkIndexBuild writes with
ASOF_BENCH_TEXTS), it embeds each of those texts once instead, in batches of 8: the embedding
bound of an index build on the same documents.

Usage: python bench/embed_peer.py MODEL_DIR [--threads N] [--seconds S] [--texts FILE]
Prints one JSON line: {"passages_per_s": ..., "threads": ..., "batch": 8, "texts": ...}.
"""
import argparse, json, time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

# The exact text BenchmarkEmbedPassages uses (internal/embed/embed_test.go).
TEXT = ("The Bank of Russia raised its key interest rate by 100 basis points to 16 percent, "
        "citing persistent inflation and a weak rouble. ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("--threads", type=int, default=0, help="intra-op threads (0: every core)")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--texts", help="JSON list of texts to embed once each (instead of --seconds)")
    args = ap.parse_args()
    text = TEXT
    while len(text) < 800:
        text += text
    batch = ["passage: " + text[:800]] * 8
    tok = Tokenizer.from_file(f"{args.model_dir}/tokenizer.json")
    tok.enable_truncation(512)
    tok.enable_padding()
    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(f"{args.model_dir}/model.onnx", so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]

    def embed(texts):
        enc = tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = sess.run(None, feed)[0]
        m = mask[..., None].astype(np.float32)
        v = (out * m).sum(1) / m.sum(1)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    embed(batch)  # warm up
    n, began = 0, time.perf_counter()
    if args.texts:
        with open(args.texts) as f:
            texts = ["passage: " + t for t in json.load(f)]
        for i in range(0, len(texts), len(batch)):
            embed(texts[i:i + len(batch)])
        n = len(texts)
    else:
        while time.perf_counter() - began < args.seconds:
            embed(batch)
            n += len(batch)
    rate = n / (time.perf_counter() - began)
    print(json.dumps({"passages_per_s": round(rate, 2), "threads": args.threads, "batch": len(batch), "texts": n,
                      "onnxruntime": ort.__version__}))


if __name__ == "__main__":
    main()
