// Package evalrun answers dated questions the way `asof eval` measures them: the system names
// (a small grammar: a base system, "+dedup" and "+judge" suffixes, "@key=value,…" fusion
// parameters) and a batch harness that runs every system over every question through the answer
// pipeline that `asof ask` serves (internal/answer) and scores the results with internal/eval.
// It reads and writes nothing: the EvalBatch activity loads the shards, the vectors and the
// qrels, calls Batch.Rows and stores the rows.
package evalrun

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/retrieve"
)

// Systems are the systems `asof eval` knows; each may take a "+dedup" and a "+judge" suffix.
var Systems = []string{"bm25", "bm25_time", "dense", "dense_time", "hybrid", "temporal_rrf", "decay", "auto", "bm25_nomask", "hybrid_nomask"}

// DefaultSystems are compared when --systems is not given.
var DefaultSystems = []string{"bm25_nomask", "bm25", "bm25_time", "dense", "hybrid", "temporal_rrf", "decay", "auto"}

// Params are the keys a system name may set after "@" (e.g.
// "temporal_rrf@wt=1.2,k=30,tr=days"), each a field of retrieve.Options.
var Params = []string{"wd", "wb", "wt", "ws", "k", "win", "top", "tr", "tp", "fb", "alpha", "lambda", "rm3", "fbdocs", "lbtop", "lbshare"}

// System is how one evaluated system retrieves, as ParseSystem read it from its name.
type System struct {
	name string
	// params are fusion parameters given after "@" (a sweep's variant): applied to ask's
	// options; such a system stores no ranked lists and scores the strict results only.
	params  []param
	mode    retrieve.Mode
	nomask  bool // no as-of mask at all: what leakage costs
	noDense bool // recency fusion of BM25 and time only (the docs/design.md reference system)
	noBM25  bool // recency fusion of the dense branch and time only
	auto    bool // the intent parser picks the mode and dates
	dedup   bool // fold near-duplicates before ranking documents
	judge   bool // drop the candidates the offline judge grades 0 (judge.Heuristic)
}

// Name is the system's name as given, suffixes and parameters included.
func (s System) Name() string { return s.name }

// param is one "key=value" of a system's parameters.
type param struct {
	key   string
	num   float64
	style string
}

// lookBack is auto's look-back rule with the system's lbtop and lbshare (nil: the default).
func (s System) lookBack() *answer.LookBackRule {
	var r *answer.LookBackRule
	for _, p := range s.params {
		if p.key != "lbtop" && p.key != "lbshare" {
			continue
		}
		if r == nil {
			d := answer.DefaultLookBack
			r = &d
		}
		if p.key == "lbtop" {
			r.Top = int(p.num)
		} else {
			r.Share = p.num
		}
	}
	return r
}

// apply sets the parameters on o.
func (s System) apply(o *retrieve.Options) {
	for _, p := range s.params {
		switch p.key {
		case "wd":
			o.Weights.Dense = p.num
		case "wb":
			o.Weights.BM25 = p.num
		case "wt":
			o.Weights.Time = p.num
		case "ws":
			o.Weights.Source = p.num
		case "k":
			o.KRRF = p.num
		case "win":
			o.WindowDays = int(p.num)
		case "top":
			o.TopNEach = int(p.num)
		case "tr":
			o.TimeRank = p.style
		case "tp":
			o.TimePool = int(p.num)
		case "fb":
			o.FreshBoost = p.num
		case "alpha":
			o.Alpha = p.num
		case "lambda":
			o.Lambda = p.num
		case "rm3":
			o.Expand = int(p.num)
		case "fbdocs":
			o.FeedbackDocs = int(p.num)
		}
	}
}

// parseParams reads "key=value,…" (Params).
func parseParams(name, list string) ([]param, error) {
	var out []param
	for kv := range strings.SplitSeq(list, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !slices.Contains(Params, k) || slices.ContainsFunc(out, func(p param) bool { return p.key == k }) {
			return nil, fmt.Errorf("system %q: %q is not key=value with a known, unrepeated key (%s)", name, kv, strings.Join(Params, ", "))
		}
		p := param{key: k}
		if k == "tr" {
			if v != retrieve.TimeRankCompetition && v != retrieve.TimeRankDays {
				return nil, fmt.Errorf("system %q: tr=%q (%s or %s)", name, v, retrieve.TimeRankCompetition, retrieve.TimeRankDays)
			}
			p.style = v
		} else {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(n) || math.IsInf(n, 0) || n < 0 {
				return nil, fmt.Errorf("system %q: %s=%q is not a number ≥ 0", name, k, v)
			}
			p.num = n
		}
		out = append(out, p)
	}
	o := retrieve.DefaultOptions()
	(System{params: out}).apply(&o)
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("system %q: %w", name, err)
	}
	return out, nil
}

// ParseSystem reads a system name such as "temporal_rrf+dedup" or
// "temporal_rrf@wt=1,tr=days".
func ParseSystem(name string) (System, error) {
	s := System{name: name}
	name, params, hasParams := strings.Cut(name, "@")
	if hasParams {
		ps, err := parseParams(s.name, params)
		if err != nil {
			return s, err
		}
		s.params = ps
	}
	base, suffixes, found := strings.Cut(name, "+")
	if found {
		for _, suffix := range strings.Split(suffixes, "+") {
			switch {
			case suffix == "dedup" && !s.dedup:
				s.dedup = true
			case suffix == "judge" && !s.judge:
				s.judge = true
			default:
				return s, fmt.Errorf("system %q: unknown or repeated suffix %q (+dedup, +judge)", name, suffix)
			}
		}
	}
	switch base {
	case "bm25":
		s.mode = retrieve.BM25
	case "bm25_time":
		s.mode, s.noDense = retrieve.Recency, true
	case "dense_time":
		s.mode, s.noBM25 = retrieve.Recency, true
	case "dense":
		s.mode = retrieve.Dense
	case "hybrid":
		s.mode = retrieve.Hybrid
	case "temporal_rrf":
		s.mode = retrieve.Recency
	case "decay":
		s.mode = retrieve.Decay
	case "auto":
		s.mode, s.auto = retrieve.Recency, true
	case "bm25_nomask":
		s.mode, s.nomask = retrieve.BM25, true
	case "hybrid_nomask":
		s.mode, s.nomask = retrieve.Hybrid, true
	default:
		return s, fmt.Errorf("unknown system %q (known: %s, each optionally +dedup and +judge, then @key=value,…)", s.name, strings.Join(Systems, ", "))
	}
	return s, nil
}
