package evalrun

import (
	"reflect"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/retrieve"
)

// TestParseSystemAccepts: every known system, with its suffixes in either order and with
// parameters, reads as the mode and flags that system retrieves with.
func TestParseSystemAccepts(t *testing.T) {
	tests := []struct {
		name, system string
		want         System
	}{
		{"bm25", "bm25", System{mode: retrieve.BM25}},
		{"bm25_time", "bm25_time", System{mode: retrieve.Recency, noDense: true}},
		{"dense", "dense", System{mode: retrieve.Dense}},
		{"dense_time", "dense_time", System{mode: retrieve.Recency, noBM25: true}},
		{"hybrid", "hybrid", System{mode: retrieve.Hybrid}},
		{"temporal_rrf", "temporal_rrf", System{mode: retrieve.Recency}},
		{"decay", "decay", System{mode: retrieve.Decay}},
		{"auto", "auto", System{mode: retrieve.Recency, auto: true}},
		{"bm25_nomask", "bm25_nomask", System{mode: retrieve.BM25, nomask: true}},
		{"hybrid_nomask", "hybrid_nomask", System{mode: retrieve.Hybrid, nomask: true}},
		{"dedup", "temporal_rrf+dedup", System{mode: retrieve.Recency, dedup: true}},
		{"nomask dedup", "bm25_nomask+dedup", System{mode: retrieve.BM25, nomask: true, dedup: true}},
		{"judge", "temporal_rrf+judge", System{mode: retrieve.Recency, judge: true}},
		{"dedup then judge", "dense+dedup+judge", System{mode: retrieve.Dense, dedup: true, judge: true}},
		{"judge then dedup", "hybrid+judge+dedup", System{mode: retrieve.Hybrid, dedup: true, judge: true}},
		{"parameters", "temporal_rrf@wt=1.2,tr=days", System{mode: retrieve.Recency,
			params: []param{{key: "wt", num: 1.2}, {key: "tr", style: retrieve.TimeRankDays}}}},
		{"suffix and parameters", "auto+dedup@lbtop=3", System{mode: retrieve.Recency, auto: true, dedup: true,
			params: []param{{key: "lbtop", num: 3}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSystem(tt.system)
			if err != nil {
				t.Fatalf("ParseSystem(%q): %v", tt.system, err)
			}
			tt.want.name = tt.system
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseSystem(%q) = %+v, want %+v", tt.system, got, tt.want)
			}
			if got.Name() != tt.system {
				t.Fatalf("Name() = %q, want %q", got.Name(), tt.system)
			}
		})
	}
}

// TestParseSystemKnowsEveryListedSystem: Systems and DefaultSystems name only systems the
// grammar reads.
func TestParseSystemKnowsEveryListedSystem(t *testing.T) {
	for _, name := range append(append([]string{}, Systems...), DefaultSystems...) {
		if _, err := ParseSystem(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestParseSystemRefuses: a bad name is refused with the reason, word for word.
func TestParseSystemRefuses(t *testing.T) {
	known := "bm25, bm25_time, dense, dense_time, hybrid, temporal_rrf, decay, auto, bm25_nomask, hybrid_nomask"
	keys := strings.Join(Params, ", ")
	tests := []struct {
		name, system, want string
	}{
		{"empty", "", `unknown system "" (known: ` + known + `, each optionally +dedup and +judge, then @key=value,…)`},
		{"unknown base", "bm26", `unknown system "bm26" (known: ` + known + `, each optionally +dedup and +judge, then @key=value,…)`},
		{"suffix without base", "+dedup", `unknown system "+dedup" (known: ` + known + `, each optionally +dedup and +judge, then @key=value,…)`},
		{"unknown suffix", "bm25+fast", `system "bm25+fast": unknown or repeated suffix "fast" (+dedup, +judge)`},
		{"repeated suffix", "bm25+dedup+dedup", `system "bm25+dedup+dedup": unknown or repeated suffix "dedup" (+dedup, +judge)`},
		{"trailing plus", "bm25+judge+", `system "bm25+judge+": unknown or repeated suffix "" (+dedup, +judge)`},
		{"empty suffix", "bm25+", `system "bm25+": unknown or repeated suffix "" (+dedup, +judge)`},
		{"suffix error names the system without parameters", "bm25+x@wt=1", `system "bm25+x": unknown or repeated suffix "x" (+dedup, +judge)`},
		{"unknown key", "temporal_rrf@foo=1", `system "temporal_rrf@foo=1": "foo=1" is not key=value with a known, unrepeated key (` + keys + `)`},
		{"repeated key", "temporal_rrf@wt=1,wt=2", `system "temporal_rrf@wt=1,wt=2": "wt=2" is not key=value with a known, unrepeated key (` + keys + `)`},
		{"no value", "temporal_rrf@wt", `system "temporal_rrf@wt": "wt" is not key=value with a known, unrepeated key (` + keys + `)`},
		{"empty parameters", "temporal_rrf@", `system "temporal_rrf@": "" is not key=value with a known, unrepeated key (` + keys + `)`},
		{"not a number", "temporal_rrf@wt=high", `system "temporal_rrf@wt=high": wt="high" is not a number ≥ 0`},
		{"negative", "temporal_rrf@wt=-1", `system "temporal_rrf@wt=-1": wt="-1" is not a number ≥ 0`},
		{"not finite", "temporal_rrf@wb=Inf", `system "temporal_rrf@wb=Inf": wb="Inf" is not a number ≥ 0`},
		{"NaN", "temporal_rrf@k=NaN", `system "temporal_rrf@k=NaN": k="NaN" is not a number ≥ 0`},
		{"unknown time rank", "temporal_rrf@tr=weeks", `system "temporal_rrf@tr=weeks": tr="weeks" (competition or days)`},
		{"invalid options", "temporal_rrf@k=0", `system "temporal_rrf@k=0": retrieve: invalid options: RRF constant 0 must be > 0`},
		{"parameters checked before the base", "bm26@wt=x", `system "bm26@wt=x": wt="x" is not a number ≥ 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSystem(tt.system)
			if err == nil {
				t.Fatalf("ParseSystem(%q) accepted", tt.system)
			}
			if err.Error() != tt.want {
				t.Fatalf("ParseSystem(%q) error\n %s\nwant\n %s", tt.system, err, tt.want)
			}
		})
	}
}

// TestSystemParamsApply: a sweep's variant's parameters land on ask's options and on auto's
// look-back rule; a system without them leaves both as they are.
func TestSystemParamsApply(t *testing.T) {
	lb := answer.DefaultLookBack
	lb.Top, lb.Share = 5, 0.5
	tests := []struct {
		name, system string
		check        func(retrieve.Options) bool
		lookBack     *answer.LookBackRule
	}{
		{"none", "temporal_rrf", func(o retrieve.Options) bool { return reflect.DeepEqual(o, retrieve.DefaultOptions()) }, nil},
		{"weights and style", "temporal_rrf@wd=0.5,wb=1.5,wt=1,ws=0.2,k=30,tr=days", func(o retrieve.Options) bool {
			return o.Weights.Dense == 0.5 && o.Weights.BM25 == 1.5 && o.Weights.Time == 1 && o.Weights.Source == 0.2 && o.KRRF == 30 && o.TimeRank == retrieve.TimeRankDays
		}, nil},
		{"window, depth, boost", "auto+dedup@win=90,top=200,fb=2,tp=40", func(o retrieve.Options) bool {
			return o.WindowDays == 90 && o.TopNEach == 200 && o.FreshBoost == 2 && o.TimePool == 40
		}, nil},
		{"decay and feedback", "decay@alpha=0.2,lambda=3,rm3=10,fbdocs=5", func(o retrieve.Options) bool {
			return o.Alpha == 0.2 && o.Lambda == 3 && o.Expand == 10 && o.FeedbackDocs == 5
		}, nil},
		{"look-back", "auto@lbtop=5,lbshare=0.5", func(o retrieve.Options) bool { return reflect.DeepEqual(o, retrieve.DefaultOptions()) }, &lb},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSystem(tt.system)
			if err != nil {
				t.Fatal(err)
			}
			o := retrieve.DefaultOptions()
			s.apply(&o)
			if !tt.check(o) {
				t.Fatalf("ParseSystem(%q) applied %+v", tt.system, o)
			}
			if got := s.lookBack(); !reflect.DeepEqual(got, tt.lookBack) {
				t.Fatalf("look-back %+v, want %+v", got, tt.lookBack)
			}
		})
	}
}

// FuzzParseSystem: any name is read or refused, never a panic, and an accepted name keeps
// ask's options valid.
func FuzzParseSystem(f *testing.F) {
	for _, s := range []string{"bm25", "temporal_rrf+dedup@wt=1,tr=days", "auto+judge@lbtop=3", "x@", "+@=,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		s, err := ParseSystem(name)
		if err != nil {
			return
		}
		o := retrieve.DefaultOptions()
		s.apply(&o)
		if err := o.Validate(); err != nil {
			t.Fatalf("%q accepted with invalid options: %v", name, err)
		}
	})
}
