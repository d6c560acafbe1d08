"""bm25s (numpy backend) on the same documents and queries as asof's BenchmarkSearchTop10
(internal/lexical; written by it with ASOF_BENCH_BM25=FILE): top 10 per query, one query at a
time, single-threaded. `make bench` runs both.

Each query is timed from its text to its top 10: bm25s.tokenize (English stop words, no
stemmer) plus BM25.retrieve, as asof's time covers bleve's query analysis plus the search.
k1 and b are bleve's (1.2, 0.75); bm25s' default method ("lucene") is the BM25 bleve scores.

Usage: python bench/bm25_peer.py FILE [--passes N]
Prints one JSON line: {"ms_per_query": ..., "cpu_ms_per_query": ..., "index_docs_per_s": ..., ...}
(cpu_ms_per_query: the process's CPU time per query, steadier than wall time on a shared
machine; asof's benchmark reports the same as cpu-ms/query).
"""
import argparse, json, time

import bm25s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--passes", type=int, default=3, help="timed passes over the queries")
    args = ap.parse_args()
    with open(args.file) as f:
        data = json.load(f)
    docs, queries = data["docs"], data["queries"]

    began = time.perf_counter()
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene", backend="numpy")
    retriever.index(bm25s.tokenize(docs, stopwords="en", show_progress=False), show_progress=False)
    indexed = time.perf_counter() - began

    def search(q):
        tokens = bm25s.tokenize([q], stopwords="en", return_ids=False, show_progress=False)
        if not tokens[0]:
            return None
        return retriever.retrieve(tokens, k=10, n_threads=1, backend_selection="numpy", show_progress=False)

    for q in queries:  # warm up: every query once
        search(q)
    n, began, cpu = 0, time.perf_counter(), time.process_time()
    for _ in range(args.passes):
        for q in queries:
            search(q)
            n += 1
    ms = (time.perf_counter() - began) * 1e3 / n
    cpu_ms = (time.process_time() - cpu) * 1e3 / n
    print(json.dumps({"bm25s": bm25s.__version__, "docs": len(docs), "queries": len(queries), "k": 10,
                      "ms_per_query": round(ms, 3),
                      "cpu_ms_per_query": round(cpu_ms, 3), "index_docs_per_s": round(len(docs) / indexed, 1)}))


if __name__ == "__main__":
    main()
