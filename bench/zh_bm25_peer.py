"""The outside baseline for Chinese as-of questions: BM25 over jieba words with the as-of mask
(bm25s, Lucene's BM25, k1 1.2, b 0.75), scored as `asof eval` scores (internal/eval: nDCG@10
with gain 2^grade − 1, the ideal from every judged document of the question; a document
published after the end of the question's day can never rank).

It reads a judged set in asof's layout (docs.parquet: doc_id, published_at, title, text;
questions.parquet: question_id, question_date, question; qrels.parquet: question_id, doc_id,
grade), e.g. ../shared/data/chronoqa-dev or evalsets/zh-news-fixture, and scores three
tokenizations side by side: jieba words (jieba.lcut, precise mode), Han character bigrams (what
bleve's CJK analyzer indexes) and single characters. Punctuation and spaces are dropped; Latin
words and numbers are lower-cased tokens.

Usage: python bench/zh_bm25_peer.py DIR [--window-days N] [--json FILE]
(its packages are pinned in bench/requirements.txt: `.asof/bench-venv/bin/python`, which
`make bench` fills, or `pip install -r bench/requirements.txt` in a venv of your own)
Prints a Markdown table (nDCG@10 and Recall@10 over every judged question, over those with a
grade-2 document and over those without) and, with --json, writes the figures and each
question's nDCG@10 per tokenization.
"""
import argparse
import json
import math
import re
import sys
from datetime import timedelta

import bm25s
import jieba
import numpy as np
import pyarrow.parquet as pq

HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
PIECE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[A-Za-z0-9\u00c0-\u024f\u0400-\u04ff]+")


def words(text):
    out = []
    for w in jieba.lcut(text):
        w = w.strip().lower()
        if w and (HAN.search(w) or re.fullmatch(r"[a-z0-9\u00c0-\u024f\u0400-\u04ff]+", w)):
            out.append(w)
    return out


def grams(text, n):
    out = []
    for p in PIECE.findall(text.lower()):
        if not HAN.match(p):
            out.append(p)
        elif len(p) < n:
            out.append(p)
        else:
            out.extend(p[i:i + n] for i in range(len(p) - n + 1))
    return out


def ndcg10(ranked, judged):
    dcg = sum((2 ** judged.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(judged.values(), reverse=True)[:10]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--window-days", type=int, default=0, help="also cut what is older than N days (0: the whole past)")
    ap.add_argument("--json", help="write the figures and per-question nDCG@10 here")
    args = ap.parse_args()
    jieba.setLogLevel(60)
    docs = pq.read_table(f"{args.dir}/docs.parquet").to_pylist()
    questions = pq.read_table(f"{args.dir}/questions.parquet").to_pylist()
    qrels = pq.read_table(f"{args.dir}/qrels.parquet").to_pylist()
    judged = {}
    for r in qrels:
        judged.setdefault(r["question_id"], {})[r["doc_id"]] = r["grade"]
    ids = [d["doc_id"] for d in docs]
    day = np.array([d["published_at"].timestamp() for d in docs])
    texts = [((d.get("title") or "") + " " + (d.get("text") or "")).strip() for d in docs]
    qs = [q for q in questions if q["question_id"] in judged]

    tokenizers = {"jieba words": words, "Han bigrams": lambda t: grams(t, 2), "Han characters": lambda t: grams(t, 1)}
    out = {"set": args.dir, "questions": len(qs), "docs": len(docs), "window_days": args.window_days,
           "bm25s": bm25s.__version__, "jieba": jieba.__version__, "systems": {}}
    rows = []
    for name, tok in tokenizers.items():
        corpus = [tok(t) for t in texts]
        r = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        r.index(corpus_tokens(corpus), show_progress=False)
        per = {}
        for q in qs:
            end = (q["question_date"] + timedelta(days=1)).timestamp()  # the end of the question's day
            allowed = day < end
            if args.window_days:
                allowed &= day >= end - args.window_days * 86400
            qt = [w for w in tok(q["question"]) if w in r.vocab_dict]
            if not qt:
                per[q["question_id"]] = 0.0
                continue
            s = r.get_scores(qt)
            s = np.where(allowed & (s > 0), s, -np.inf)
            top = [ids[i] for i in np.argsort(-s, kind="stable")[:10] if np.isfinite(s[i])]
            per[q["question_id"]] = ndcg10(top, judged[q["question_id"]])
        fresh = [v for k, v in per.items() if 2 in judged[k].values()]
        old = [v for k, v in per.items() if 2 not in judged[k].values()]
        fig = {"ndcg10": float(np.mean(list(per.values()))), "ndcg10_grade2": float(np.mean(fresh)) if fresh else None,
               "ndcg10_older": float(np.mean(old)) if old else None, "grade2_questions": len(fresh), "per_query": per}
        out["systems"][name] = fig
        rows.append(f"| BM25, {name}, as-of mask | {fig['ndcg10']:.3f} | {fig['ndcg10_grade2'] or 0:.3f} ({len(fresh)}) | {fig['ndcg10_older'] or 0:.3f} ({len(old)}) |")
    print(f"{args.dir}: {len(qs)} judged questions, {len(docs)} documents (bm25s {bm25s.__version__}, jieba {jieba.__version__})")
    print("| system | nDCG@10 all | grade-2 questions | the others |")
    print("| --- | ---: | ---: | ---: |")
    print("\n".join(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, ensure_ascii=False)


def corpus_tokens(corpus):
    """bm25s' Tokenized form (ids and vocabulary) of pre-split documents."""
    vocab, ids = {}, []
    for doc in corpus:
        ids.append([vocab.setdefault(w, len(vocab)) for w in doc])
    return bm25s.tokenization.Tokenized(ids=ids, vocab=vocab)


if __name__ == "__main__":
    sys.exit(main())
