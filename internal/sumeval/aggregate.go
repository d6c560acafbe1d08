package sumeval

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Rubric is the study's five 1–5 scores of one summary; a nil score is missing (not judged,
// or the judge gave none).
type Rubric struct {
	Relevance     *float64 `json:"relevance"`
	Groundedness  *float64 `json:"groundedness"`
	FactsNumbers  *float64 `json:"facts_numbers"`
	DatesTimeline *float64 `json:"dates_timeline"`
	Recency       *float64 `json:"recency"`
}

// Overall is the study's weighted score, 0.45·recency + 0.20·dates_timeline +
// 0.20·groundedness + 0.10·facts_numbers + 0.05·relevance; ok is false when a score is missing.
func (r Rubric) Overall() (float64, bool) {
	parts := []struct {
		w float64
		s *float64
	}{{0.45, r.Recency}, {0.20, r.DatesTimeline}, {0.20, r.Groundedness}, {0.10, r.FactsNumbers}, {0.05, r.Relevance}}
	var sum float64
	for _, p := range parts {
		if p.s == nil {
			return 0, false
		}
		sum += p.w * *p.s
	}
	return sum, true
}

// Complete reports whether all five scores are there.
func (r Rubric) Complete() bool { _, ok := r.Overall(); return ok }

// Row is one scored answer.
type Row struct {
	System    string
	QueryID   string
	Dates     DateMetrics
	Citations CitationMetrics
	// Rubric is nil when the system's answers were not judged at all.
	Rubric *Rubric
	// Lead is nil when the question has no judgements (or the system cites no block).
	Lead *LeadMetrics
}

// Mean is a running mean that skips missing values. Its JSON is {"mean": x or null, "n": n,
// "sum": s}; it decodes from "sum" and "n", exactly.
type Mean struct {
	Sum float64 `json:"sum"`
	N   int     `json:"n"`
}

// Add adds x unless it is NaN.
func (m *Mean) Add(x float64) {
	if !math.IsNaN(x) {
		m.Sum += x
		m.N++
	}
}

// Value is the mean, NaN when nothing was added.
func (m Mean) Value() float64 {
	if m.N == 0 {
		return math.NaN()
	}
	return m.Sum / float64(m.N)
}

// meanJSON is Mean's JSON: the mean (null for no value) with what it is made of.
type meanJSON struct {
	Mean *float64 `json:"mean"`
	N    int      `json:"n"`
	Sum  float64  `json:"sum"`
}

// JSONSchemaAlias is what Mean's JSON is, for the published schemas (internal/jsonschema).
func (Mean) JSONSchemaAlias() any { return meanJSON{} }

// MarshalJSON writes {"mean": x, "n": n, "sum": s}, with null for no value.
func (m Mean) MarshalJSON() ([]byte, error) {
	v := meanJSON{N: m.N, Sum: m.Sum}
	if m.N > 0 {
		x := m.Value()
		v.Mean = &x
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads what MarshalJSON writes ("mean" is derived and ignored).
func (m *Mean) UnmarshalJSON(data []byte) error {
	var v meanJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	m.Sum, m.N = v.Sum, v.N
	return nil
}

// Aggregate is a system's figures over its answers. Date figures are means over the answers
// where they exist (as pandas' mean skips NaN); shares of claims and dates are pooled over all
// answers.
type Aggregate struct {
	System  string `json:"system"`
	Answers int    `json:"answers"`
	// HasDates is the share of summaries that state a date; DatesPerSummary the mean count.
	HasDates        Mean `json:"has_dates"`
	DatesPerSummary Mean `json:"dates_per_summary"`
	MinAgeContext   Mean `json:"min_age_context_days"`
	MinAgeSummary   Mean `json:"min_age_summary_days"`
	Gap             Mean `json:"gap_days"`
	Within7         Mean `json:"summary_dates_within_7d"`
	Within30        Mean `json:"summary_dates_within_30d"`
	// Claims, Cited, BadCitations, DatesChecked and DatesUnsupported are summed over answers.
	Claims           int  `json:"claims"`
	Cited            int  `json:"cited_claims"`
	BadCitations     int  `json:"bad_citations"`
	DatesChecked     int  `json:"dates_checked"`
	DatesUnsupported int  `json:"dates_unsupported"`
	WholeContext     bool `json:"dates_checked_against_whole_context"`
	// Judged is false when no answer had a rubric; then the rubric figures are empty.
	Judged bool `json:"judged"`
	// RubricMissing counts answers whose rubric lacks a score (skipped in the means).
	RubricMissing int  `json:"rubric_missing"`
	Relevance     Mean `json:"relevance"`
	Groundedness  Mean `json:"groundedness"`
	FactsNumbers  Mean `json:"facts_numbers"`
	DatesTimeline Mean `json:"dates_timeline"`
	Recency       Mean `json:"recency"`
	Overall       Mean `json:"overall"`
	// Graded counts the answers scored against judgements (Row.Lead); Lead and Support are
	// shares of those whose question has a grade-2 document.
	Graded  int  `json:"graded"`
	Lead    Mean `json:"summary_lead"`
	Support Mean `json:"summary_support"`
	// CitedDocs, CitedRelevant and CitedUnjudged are summed over the graded answers.
	CitedDocs     int `json:"cited_docs"`
	CitedRelevant int `json:"cited_relevant"`
	CitedUnjudged int `json:"cited_unjudged"`
}

// Noise is the share of the documents graded answers cite that are not judged relevant
// (grade 0 or unjudged), pooled over answers; NaN when none cites a document.
func (g Aggregate) Noise() float64 { return ratio(g.CitedDocs-g.CitedRelevant, g.CitedDocs) }

// UnjudgedShare is the share of cited documents that are unjudged (part of Noise).
func (g Aggregate) UnjudgedShare() float64 { return ratio(g.CitedUnjudged, g.CitedDocs) }

// CitedShare is Cited / Claims (NaN without claims).
func (g Aggregate) CitedShare() float64 { return ratio(g.Cited, g.Claims) }

// UnsupportedShare is DatesUnsupported / DatesChecked (NaN without dates).
func (g Aggregate) UnsupportedShare() float64 { return ratio(g.DatesUnsupported, g.DatesChecked) }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Summarize aggregates rows per system, systems in order of first appearance.
func Summarize(rows []Row) []Aggregate {
	var out []Aggregate
	at := map[string]int{}
	for _, r := range rows {
		i, ok := at[r.System]
		if !ok {
			i = len(out)
			at[r.System] = i
			out = append(out, Aggregate{System: r.System})
		}
		g := &out[i]
		g.Answers++
		d := r.Dates
		g.HasDates.Add(b2f(d.HasDates()))
		g.DatesPerSummary.Add(float64(d.Dates))
		g.MinAgeContext.Add(d.MinAgeContext)
		g.MinAgeSummary.Add(d.MinAgeSummary)
		g.Gap.Add(d.Gap)
		g.Within7.Add(d.Within7)
		g.Within30.Add(d.Within30)
		c := r.Citations
		g.Claims += c.Claims
		g.Cited += c.Cited
		g.BadCitations += c.BadCitations
		g.DatesChecked += c.DatesChecked
		g.DatesUnsupported += c.DatesUnsupported
		g.WholeContext = g.WholeContext || c.WholeContext
		if l := r.Lead; l != nil {
			g.Graded++
			if l.Answerable {
				g.Lead.Add(b2f(l.Lead))
				g.Support.Add(b2f(l.Support))
			}
			g.CitedDocs += l.CitedDocs
			g.CitedRelevant += l.CitedRelevant
			g.CitedUnjudged += l.CitedUnjudged
		}
		if r.Rubric == nil {
			continue
		}
		g.Judged = true
		rb := *r.Rubric
		overall, ok := rb.Overall()
		if !ok {
			g.RubricMissing++
			continue
		}
		g.Overall.Add(overall)
		g.Relevance.Add(*rb.Relevance)
		g.Groundedness.Add(*rb.Groundedness)
		g.FactsNumbers.Add(*rb.FactsNumbers)
		g.DatesTimeline.Add(*rb.DatesTimeline)
		g.Recency.Add(*rb.Recency)
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Markdown renders the systems side by side: the date figures, the citation checks, the
// figures against judgements (summary lead, support and noise, when some answer was graded)
// and the rubric ("not judged" for a system without one). Missing figures are "–".
func Markdown(aggs []Aggregate) string {
	var b strings.Builder
	b.WriteString("| system | answers | with dates | dates per summary | freshest context doc, days | freshest summary date, days | gap, days | summary dates ≤7 d | ≤30 d | claims cited | bad citations | dates unsupported | overall (judged) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range aggs {
		unsupported := num(g.UnsupportedShare(), 3)
		if g.WholeContext {
			unsupported += " (vs whole context)"
		}
		overall := "not judged"
		if g.Judged {
			overall = fmt.Sprintf("%s (%d)", num(g.Overall.Value(), 3), g.Overall.N)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |\n", g.System, g.Answers,
			num(g.HasDates.Value(), 3), num(g.DatesPerSummary.Value(), 2), num(g.MinAgeContext.Value(), 2), num(g.MinAgeSummary.Value(), 2),
			num(g.Gap.Value(), 2), num(g.Within7.Value(), 3), num(g.Within30.Value(), 3), num(g.CitedShare(), 3), g.BadCitations, unsupported, overall)
	}
	if slices.ContainsFunc(aggs, func(g Aggregate) bool { return g.Graded > 0 }) {
		b.WriteString("\n| system | graded | with a grade-2 doc | summary lead | summary support | cited docs | summary noise | of them unjudged | gap, days |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, g := range aggs {
			if g.Graded == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %d | %s | %s | %s |\n", g.System, g.Graded, g.Lead.N, num(g.Lead.Value(), 3),
				num(g.Support.Value(), 3), g.CitedDocs, num(g.Noise(), 3), num(g.UnjudgedShare(), 3), num(g.Gap.Value(), 2))
		}
	}
	b.WriteString("\n| system | relevance | groundedness | facts_numbers | dates_timeline | recency | overall | judged | missing |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range aggs {
		if !g.Judged {
			fmt.Fprintf(&b, "| %s | not judged | | | | | | 0 | |\n", g.System)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d | %d |\n", g.System, num(g.Relevance.Value(), 3), num(g.Groundedness.Value(), 3),
			num(g.FactsNumbers.Value(), 3), num(g.DatesTimeline.Value(), 3), num(g.Recency.Value(), 3), num(g.Overall.Value(), 3), g.Overall.N, g.RubricMissing)
	}
	return b.String()
}

// num formats x with prec decimals, "–" for NaN.
func num(x float64, prec int) string {
	if math.IsNaN(x) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}
