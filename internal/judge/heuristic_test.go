package judge_test

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/asofrag/asof/internal/judge"
)

func TestHeuristic(t *testing.T) {
	tests := []struct {
		name  string
		query string
		doc   judge.Doc
		want  int
	}{
		// English: "ECB interest rate decision" has 4 terms: ecb, interest, rate, decision.
		{name: "en all terms, high cosine", query: "ECB interest rate decision",
			doc:  judge.Doc{Title: "ECB cuts rates", Text: "The ECB's decision lowers the interest rate by 25 basis points.", Cosine: 0.91},
			want: 2},
		{name: "en 3 of 4 terms", query: "What was the latest ECB interest rate decision?",
			doc:  judge.Doc{Title: "ECB holds interest rates", Text: "Policy makers left borrowing costs unchanged.", Cosine: 0.88},
			want: 2},
		{name: "en all terms, cosine unknown", query: "ECB interest rate decision",
			doc:  judge.Doc{Title: "ECB decided", Text: "ECB interest-rate decisions explained."},
			want: 2},
		{name: "en all terms, cosine too low for 2", query: "ECB interest rate decision",
			doc:  judge.Doc{Title: "Glossary", Text: "ECB: see central bank. Interest rate: the price of money. Decision: a choice.", Cosine: 0.76},
			want: 1},
		{name: "en paraphrase, strong cosine", query: "ECB interest rate decision",
			doc:  judge.Doc{Title: "ECB cuts rates", Text: "The European Central Bank cut its key rate by 25 basis points.", Cosine: 0.91},
			want: 2},
		{name: "en half the terms", query: "ECB interest rate decision",
			doc:  judge.Doc{Title: "UK mortgage rates climb", Text: "Interest on home loans rose again.", Cosine: 0.79},
			want: 1},
		{name: "en no terms, high cosine", query: "ECB interest rate decision",
			doc:  judge.Doc{Title: "Lagarde speaks", Text: "The central bank in Frankfurt lowered borrowing costs.", Cosine: 0.86},
			want: 1},
		{name: "en unrelated", query: "ECB interest rate decision",
			doc:  judge.Doc{Title: "Football results", Text: "Arsenal won 2-1 at home.", Cosine: 0.72},
			want: 0},
		{name: "en one of four terms", query: "ECB interest rate decision",
			doc:  judge.Doc{Title: "Court decision", Text: "The judge ruled on the case.", Cosine: 0.74},
			want: 0},
		// "who is the finance minister" has 2 terms: financ, minist ("ministry" has that key too).
		{name: "en one word of two, cosine disagrees", query: "who is the finance minister",
			doc:  judge.Doc{Title: "Drought delays spring sowing", Text: "The agriculture ministry cut its grain forecast to 3.6 million tonnes.", Cosine: 0.76},
			want: 0},
		{name: "en one word of two, cosine just below CosineDirect", query: "finance minister",
			doc: judge.Doc{Text: "The ministry of agriculture.", Cosine: judge.CosineDirect - 0.001}, want: 0},
		{name: "en one word of two at CosineDirect", query: "finance minister",
			doc: judge.Doc{Text: "The ministry of agriculture.", Cosine: judge.CosineDirect}, want: 1},
		{name: "en one word of two, cosine unknown", query: "finance minister",
			doc: judge.Doc{Text: "The ministry of agriculture."}, want: 1},
		{name: "en both words, low cosine", query: "who is the finance minister",
			doc:  judge.Doc{Title: "Budget", Text: "The finance ministry published the budget.", Cosine: 0.76},
			want: 1},
		{name: "en one word of one, low cosine", query: "minister", doc: judge.Doc{Text: "The ministry spoke.", Cosine: 0.7}, want: 1},
		{name: "en plural and stem", query: "rates", doc: judge.Doc{Text: "The rate is 4%."}, want: 2},
		{name: "en prefix Europe~European", query: "Europe gas", doc: judge.Doc{Text: "European gas prices fell."}, want: 2},
		{name: "en bank is not bankrupt", query: "bank", doc: judge.Doc{Text: "The firm went bankrupt."}, want: 0},
		{name: "en hyphen parts", query: "covid vaccine", doc: judge.Doc{Text: "COVID-19 vaccines are free."}, want: 2},
		{name: "en case and punctuation", query: "OPEC+ output", doc: judge.Doc{Title: "opec OUTPUT cut"}, want: 2},

		// Russian: "ключевая ставка ЦБ" has 3 terms: ключ, ставк, цб.
		{name: "ru all terms", query: "ключевая ставка ЦБ",
			doc:  judge.Doc{Title: "ЦБ сохранил ключевую ставку", Text: "Банк России сохранил ключевую ставку на уровне 21%.", Cosine: 0.9},
			want: 2},
		{name: "ru 2 of 3 terms", query: "Какая сейчас ключевая ставка ЦБ?",
			doc:  judge.Doc{Title: "Банк России повысил ключевую ставку", Cosine: 0.87},
			want: 2},
		{name: "ru 1 of 3 terms", query: "ключевая ставка ЦБ",
			doc:  judge.Doc{Title: "Ставки по ипотеке", Text: "Банки подняли ставки по кредитам.", Cosine: 0.81},
			want: 1},
		{name: "ru unrelated", query: "ключевая ставка ЦБ",
			doc:  judge.Doc{Title: "Погода", Text: "В Москве ожидается снег.", Cosine: 0.71},
			want: 0},
		{name: "ru inflection ставки~ставка", query: "ставки", doc: judge.Doc{Text: "Ставка осталась прежней."}, want: 2},
		{name: "ru inflection and ё", query: "инфляция в России", doc: judge.Doc{Text: "Инфляция в российской экономике ещё высока.", Cosine: 0.84}, want: 2},

		// No content terms: cosine only, never 2.
		{name: "no terms, high cosine", query: "What's new?", doc: judge.Doc{Text: "Anything at all.", Cosine: 0.9}, want: 1},
		{name: "no terms, low cosine", query: "latest news", doc: judge.Doc{Text: "latest news", Cosine: 0.8}, want: 0},
		{name: "no terms ru", query: "что нового сейчас?", doc: judge.Doc{Text: "что нового", Cosine: 0.84}, want: 1},
		{name: "no terms, cosine unknown", query: "", doc: judge.Doc{Text: "Anything."}, want: 0},

		// Cosine that is not a number counts as unknown.
		{name: "NaN cosine", query: "rates", doc: judge.Doc{Text: "rates", Cosine: math.NaN()}, want: 2},
		{name: "Inf cosine, no match", query: "rates", doc: judge.Doc{Text: "football", Cosine: math.Inf(1)}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.doc.ID = 5
			got := judge.Heuristic(tt.query, []judge.Doc{tt.doc})
			want := []judge.Verdict{{ID: 5, Relevance: tt.want}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Heuristic(%q) = %v, want %v", tt.query, got, want)
			}
		})
	}
}

func TestHeuristicThresholds(t *testing.T) {
	// Query with 5 terms, so coverage steps by 0.2: alpha beta gamma delta epsilon.
	const query = "alpha beta gamma delta epsilon"
	texts := []string{"", "alpha", "alpha beta", "alpha beta gamma", "alpha beta gamma delta"}
	tests := []struct {
		name   string
		text   int // how many query terms the text has
		cosine float64
		want   int
	}{
		{name: "cov 0.6 cos unknown", text: 3, want: 2},
		{name: "cov 0.6 at CosineDirect", text: 3, cosine: judge.CosineDirect, want: 2},
		{name: "cov 0.6 below CosineDirect", text: 3, cosine: judge.CosineDirect - 0.001, want: 1},
		{name: "cov 0.4", text: 2, cosine: 0.85, want: 1},
		{name: "cov 0.2 low cosine", text: 1, cosine: 0.82, want: 0},
		{name: "cov 0.2 at CosineRelated", text: 1, cosine: judge.CosineRelated, want: 1},
		{name: "cov 0 at CosineRelated", text: 0, cosine: judge.CosineRelated, want: 1},
		{name: "cov 0 cos unknown", text: 0, want: 0},
		{name: "cov 0.8 cos unknown", text: 4, want: 2},
		{name: "cov 0.4 at CosineStrong", text: 2, cosine: judge.CosineStrong, want: 2},
		{name: "cov 0.4 below CosineStrong", text: 2, cosine: judge.CosineStrong - 0.001, want: 1},
		{name: "cov 0.2 above CosineStrong", text: 1, cosine: 0.95, want: 1},
		{name: "cov 0 above CosineStrong", text: 0, cosine: 0.95, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := judge.Heuristic(query, []judge.Doc{{ID: 1, Text: texts[tt.text], Cosine: tt.cosine}})
			if got[0].Relevance != tt.want {
				t.Errorf("relevance = %d, want %d", got[0].Relevance, tt.want)
			}
		})
	}
}

func TestHeuristicDeterministic(t *testing.T) {
	const query = "ECB interest rate decision"
	docs := sampleDocs()
	docs = append(docs, judge.Doc{ID: 4, Title: "ECB rate decision", Text: "Interest rates were cut.", Cosine: 0.9})
	first := judge.Heuristic(query, docs)
	// Doc 3 (Russian, cosine 0.85) is more than CosineSlack below doc 1's 0.91 and shares no word: 0.
	want := []judge.Verdict{{ID: 1, Relevance: 2}, {ID: 2, Relevance: 0}, {ID: 3, Relevance: 0}, {ID: 4, Relevance: 2}}
	if !reflect.DeepEqual(first, want) {
		t.Fatalf("Heuristic = %v, want %v", first, want)
	}
	for range 20 {
		if got := judge.Heuristic(query, docs); !reflect.DeepEqual(got, first) {
			t.Fatalf("Heuristic changed: %v, then %v", first, got)
		}
	}
	// Order of the input does not matter; the output is sorted by ID.
	rev := slices.Clone(docs)
	slices.Reverse(rev)
	if got := judge.Heuristic(query, rev); !reflect.DeepEqual(got, first) {
		t.Errorf("Heuristic(reversed) = %v, want %v", got, first)
	}
	if got := judge.Heuristic(query, nil); got != nil {
		t.Errorf("Heuristic(no docs) = %v, want nil", got)
	}
}

// TestHeuristicPool grades against the facts of the whole pool a batch comes from.
func TestHeuristicPool(t *testing.T) {
	const query = "ECB interest rate decision"
	related := judge.Doc{ID: 1, Title: "Lagarde speaks", Text: "The central bank in Frankfurt lowered borrowing costs.", Cosine: 0.86}
	direct := judge.Doc{ID: 2, Title: "ECB rate decision", Text: "Interest rates were cut.", Cosine: 0.80}
	russian := judge.Doc{ID: 4, Title: "ЕЦБ", Text: "Европейский центробанк снизил ставки.", Cosine: 0.86}
	tests := []struct {
		name string
		doc  judge.Doc
		pool judge.Pool
		want int
	}{
		{name: "the batch's own best", doc: related, want: 1},
		{name: "within CosineSlack of the pool's best", doc: related, pool: judge.Pool{Best: related.Cosine + judge.CosineSlack - 0.001}, want: 1},
		{name: "beyond CosineSlack of the pool's best", doc: related, pool: judge.Pool{Best: related.Cosine + judge.CosineSlack + 0.001}, want: 0},
		{name: "words alone make it direct: kept however far", doc: direct, pool: judge.Pool{Best: 0.99}, want: 2},
		{name: "cosine unknown: no floor", doc: judge.Doc{ID: 3, Title: "Interest", Text: "rates"}, pool: judge.Pool{Best: 0.99}, want: 1},
		{name: "a pool best below the batch's: the batch's counts", doc: related, pool: judge.Pool{Best: 0.5}, want: 1},
		{name: "a worded pool: no word of the query in its language is not on it", doc: related, pool: judge.Pool{Worded: true}, want: 0},
		{name: "a worded pool: another language cannot share words, its cosine counts", doc: russian, pool: judge.Pool{Worded: true}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judge.HeuristicPool(query, []judge.Doc{tt.doc}, tt.pool)[0].Relevance; got != tt.want {
				t.Errorf("HeuristicPool(pool %+v) = %d, want %d", tt.pool, got, tt.want)
			}
		})
	}
}

// TestPoolOf finds the pool's best cosine without the query's own text, and whether the pool
// names the subject in the query's words.
func TestPoolOf(t *testing.T) {
	const pasted = "Газпром нефть передала Газпрому 5,15% акций сербской нефтяной компании NIS"
	copyDoc := judge.Doc{ID: 1, Text: pasted + " Подписаться", Cosine: 0.97}
	followUp := judge.Doc{ID: 2, Text: "Вучич: вопрос санкций против NIS решат Россия и Сербия", Cosine: 0.88}
	tests := []struct {
		name  string
		query string
		docs  []judge.Doc
		want  judge.Pool
	}{
		{"the pasted post is not the best match of itself", pasted, []judge.Doc{copyDoc, followUp}, judge.Pool{Best: 0.88, Worded: true}},
		{"a short query equal to a title is its best answer", "Газпром нефть NIS", []judge.Doc{{Title: "Газпром нефть NIS", Cosine: 0.95}}, judge.Pool{Best: 0.95, Worded: true}},
		{"no word of the query anywhere", "ECB interest rate decision", []judge.Doc{{Text: "The central bank in Frankfurt lowered borrowing costs.", Cosine: 0.86}}, judge.Pool{Best: 0.86}},
		{"one word of four is not worded", "ECB interest rate decision", []judge.Doc{{Text: "Interest in football grows."}}, judge.Pool{}},
		{"no docs", "ECB", nil, judge.Pool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judge.PoolOf(tt.query, tt.docs); got != tt.want {
				t.Errorf("PoolOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func BenchmarkHeuristic(b *testing.B) {
	docs := make([]judge.Doc, 50)
	for i := range docs {
		d := sampleDocs()[i%3]
		d.ID = i + 1
		for range 10 {
			d.Text += " " + d.Text
		}
		docs[i] = d
	}
	b.ResetTimer()
	for b.Loop() {
		judge.Heuristic("ECB interest rate decision ключевая ставка", docs)
	}
}
