package retrieve_test

import (
	"testing"

	"github.com/asofrag/asof/internal/retrieve"
	rt "github.com/asofrag/asof/internal/retrieve/retrievetest"
)

// TestExactIdentifierRanksFirst: a query naming a structured identifier (a section, a
// circular number, an amount; in English, Russian and Chinese) gets the allowed chunk that holds
// it as a whole first, in every mode that reads the query's words, even when another chunk
// shares more of the query's words and its vector is nearer; a chunk holding it published after
// the anchor never appears; a query without one ranks as before.
func TestExactIdentifierRanksFirst(t *testing.T) {
	near, far := rt.Unit(1, 0, 0), rt.Unit(0, 1, 0)
	tests := []struct {
		name, query, target string
		docs                []rt.Doc
	}{
		{"section number", "What does Section 4(2)(b) of the Act require from the lender?", "target", []rt.Doc{
			{ID: "target", Text: "Under section 4 (2)(b) a bank keeps a register.", PublishedAt: rt.Day("2024-01-10"), Vec: far},
			{ID: "words", Text: "What the Act requires from the lender under Section 4(2)(c): the lender requires consent.", PublishedAt: rt.Day("2024-03-01"), Vec: near},
			{ID: "later", Text: "Section 4(2)(b) of the Act is repealed.", PublishedAt: rt.Day("2024-09-01"), Vec: near},
		}},
		{"circular number", "Which rule did RBI/2025-26/252 change?", "target", []rt.Doc{
			{ID: "target", Text: "Circular RBI/2025-26/252: margin requirements.", PublishedAt: rt.Day("2024-01-10"), Vec: far},
			{ID: "words", Text: "Which rule did the RBI change? RBI/2025-26/25 changed the rule.", PublishedAt: rt.Day("2024-03-01"), Vec: near},
		}},
		{"Russian article", "Что требует статья 5 закона о банках?", "target", []rt.Doc{
			{ID: "target", Text: "Согласно ст. 5 банк ведёт реестр.", PublishedAt: rt.Day("2024-01-10"), Vec: far},
			{ID: "words", Text: "Что требует закон о банках: статья 15 закона о банках требует согласия.", PublishedAt: rt.Day("2024-03-01"), Vec: near},
		}},
		{"Chinese article", "第十二条规定了什么义务", "target", []rt.Doc{
			{ID: "target", Text: "依据第12条，银行应当登记。", PublishedAt: rt.Day("2024-01-10"), Vec: far},
			{ID: "words", Text: "规定了什么义务？第二条规定了义务。", PublishedAt: rt.Day("2024-03-01"), Vec: near},
		}},
	}
	asOf := rt.Day("2024-06-01")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shards := []*retrieve.Shard{rt.Shard(t, "s", tt.docs)}
			for _, mode := range []retrieve.Mode{retrieve.Recency, retrieve.Hybrid, retrieve.Decay, retrieve.BM25} {
				o := retrieve.DefaultOptions()
				o.Mode = mode
				res, err := retrieve.Search(shards, tt.query, near, asOf, o)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Results) == 0 || res.Results[0].Chunk.DocID != tt.target || res.Results[0].Exact != 1 {
					t.Fatalf("%s: results %v, want %s first as an exact match", mode, ids(res.Results), tt.target)
				}
				for _, c := range res.Candidates {
					if c.Chunk.PublishedAt.After(asOf) {
						t.Fatalf("%s: %s, published after the anchor, was a candidate", mode, c.Chunk.DocID)
					}
					if c.Chunk.DocID != tt.target && c.Exact != 0 {
						t.Fatalf("%s: %s holds no identifier of the query but is an exact match", mode, c.Chunk.DocID)
					}
				}
			}
			// Without the identifier, or with an amount only (it does not rank), no candidate is
			// an exact match.
			o := retrieve.DefaultOptions()
			o.Mode = retrieve.Hybrid
			for _, q := range []string{"what does the act require from the lender bank rule", "who borrowed Rs. 15,000 crore"} {
				res, err := retrieve.Search(shards, q, near, asOf, o)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range res.Candidates {
					if c.Exact != 0 {
						t.Fatalf("%q marked %s exact", q, c.Chunk.DocID)
					}
				}
			}
		})
	}
}

func ids(cs []retrieve.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Chunk.DocID)
	}
	return out
}
