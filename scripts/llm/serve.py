"""serve.py: llama.cpp's OpenAI-compatible server (xllamacpp) on one GGUF model, on 127.0.0.1.

    DEST/venv/bin/python scripts/llm/serve.py --model DEST/SmolLM2-135M-Instruct.Q4_1.gguf --port 8089

It serves /v1/chat/completions, /v1/models and /health under the model name "smollm2" (--alias),
prints "READY <address>" on stdout once it listens, and stops on SIGTERM or SIGINT.
scripts/llm/setup.sh installs xllamacpp and fetches the model; worker/llm_e2e_test.go runs this.
"""

import argparse
import signal
import sys

import xllamacpp as xlc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="path to the .gguf file")
    ap.add_argument("--port", type=int, required=True, help="TCP port on 127.0.0.1")
    ap.add_argument("--alias", default="smollm2", help="the model name clients send (default smollm2)")
    # One thread: ~15 ms/token for SmolLM2-135M on a 2-core box; two threads collapse there.
    ap.add_argument("--threads", type=int, default=1, help="CPU threads for generation and prompt batches (default 1)")
    ap.add_argument("--ctx", type=int, default=4096, help="context size in tokens, shared by the slots (default 4096)")
    ap.add_argument("--parallel", type=int, default=1, help="requests decoded together, each in its own slot of ctx/parallel tokens (default 1)")
    args = ap.parse_args()

    # Block the stop signals before the server's threads start, so they inherit the mask and
    # sigwait below is the one place that receives them.
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)

    p = xlc.CommonParams()
    p.model.path = args.model
    p.model_alias = {args.alias}  # a set of names
    p.n_ctx = args.ctx
    p.n_parallel = args.parallel
    p.cpuparams.n_threads = args.threads
    p.cpuparams_batch.n_threads = args.threads
    p.hostnames = ["127.0.0.1"]
    p.port = args.port
    srv = xlc.Server(p)
    print("READY", srv.listening_address, flush=True)
    sig = signal.sigwait(stop)
    print(f"stopping on {signal.Signals(sig).name}", file=sys.stderr, flush=True)
    del srv
    return 0


if __name__ == "__main__":
    sys.exit(main())
