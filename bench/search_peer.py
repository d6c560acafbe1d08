"""FAISS IndexFlatIP on the same vectors as BenchmarkSearchThreads (written by it with
ASOF_BENCH_VECTORS=FILE): exact top 500, at 1 and 2 OpenMP threads, and top 10 at 1 thread
(the peer of asof's int8 scan at k = 10). `make bench` runs both.

FAISS parallelises a flat search over queries, not over rows: one query per call runs on one
thread whatever omp_set_num_threads says, so the two-thread peer of asof's two goroutines is
two queries per call (rows 321 and 654; one query: row 321, as in asof's benchmark).
The multi-query settings give FAISS the 8 or 32 queries of asof's BenchmarkSearchMany (rows 321,
654, then i·9973 mod rows for i = 2, 3, …) in one call, at 1 and 2 threads. From 20 queries a
call FAISS scores them with a BLAS matrix product (distance_compute_blas_threshold).

Usage: python bench/search_peer.py FILE DIM [--calls N]
Prints one JSON line: queries/s and scanned GB/s for each setting (mean over N search calls
after one warm-up call, as asof's benchmark runs `-benchtime Nx`).
"""
import argparse, json, time

import faiss
import numpy as np

K = 500
QUERIES = (321, 654)  # BenchmarkSearchThreads' query rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("dim", type=int)
    ap.add_argument("--calls", type=int, default=50, help="timed search calls per setting")
    args = ap.parse_args()
    x = np.fromfile(args.file, dtype="<f4").reshape(-1, args.dim)
    index = faiss.IndexFlatIP(args.dim)
    index.add(x)
    out = {"faiss": faiss.__version__, "rows": len(x), "dim": args.dim, "k": K}
    many = QUERIES + tuple(i * 9973 % len(x) for i in range(2, 32))  # BenchmarkSearchMany's
    for name, threads, rows, k in (("1thread", 1, QUERIES[:1], K), ("2threads_2queries", 2, QUERIES, K),
                                   ("2threads_1query", 2, QUERIES[:1], K), ("1thread_k10", 1, QUERIES[:1], 10),
                                   ("1thread_8queries", 1, many[:8], K), ("2threads_8queries", 2, many[:8], K),
                                   ("1thread_32queries", 1, many, K), ("2threads_32queries", 2, many, K)):
        faiss.omp_set_num_threads(threads)
        q = x[list(rows)].copy()
        index.search(q, k)  # warm up
        began = time.perf_counter()
        for _ in range(args.calls):
            index.search(q, k)
        qps = len(rows) * args.calls / (time.perf_counter() - began)
        out[name] = {"queries_per_s": round(qps, 2), "scan_gb_per_s": round(qps * x.nbytes / 1e9, 2)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
