"""FAISS IndexFlatIP on the same vectors as BenchmarkSearch100kNoMask (written by it with
ASOF_BENCH_VECTORS=FILE): query row 321, top 500, 1 and 2 threads. `make bench-search` runs both.

Usage: python bench/search_peer.py FILE DIM
"""
import sys, time

import faiss
import numpy as np


def main():
    path, dim = sys.argv[1], int(sys.argv[2])
    x = np.fromfile(path, dtype="<f4").reshape(-1, dim)
    index = faiss.IndexFlatIP(dim)
    index.add(x)
    q = x[321:322].copy()
    for threads in (1, 2):
        faiss.omp_set_num_threads(threads)
        index.search(q, 500)
        best = float("inf")
        for _ in range(3):
            n, began = 30, time.perf_counter()
            for _ in range(n):
                index.search(q, 500)
            best = min(best, (time.perf_counter() - began) / n)
        print(f"FAISS IndexFlatIP {len(x)}x{dim}, {threads} thread(s): {best*1e3:.2f} ms/query, {x.nbytes/best/1e9:.1f} GB/s")


if __name__ == "__main__":
    main()
