package sumeval

// Grades are one question's judgements: a document id's grade (0, 1 or 2). A document that is
// not in the map is unjudged.
type Grades map[string]int

// HasAnswer reports whether some document is graded 2 (the question has a judged answer).
func (g Grades) HasAnswer() bool {
	for _, v := range g {
		if v >= 2 {
			return true
		}
	}
	return false
}

// LeadMetrics are one asof summary scored against judged grades: what its reader sees first,
// and how much of what it cites is on topic.
type LeadMetrics struct {
	// Answerable is true when the question has a grade-2 document; Lead and Support are
	// counted only then.
	Answerable bool
	// Lead: the summary's first claim (the first line its reader sees, render.ViewOf) cites a
	// grade-2 document.
	Lead bool
	// Support: some claim of the summary cites a grade-2 document.
	Support bool
	// CitedDocs counts the distinct documents the claims cite; CitedRelevant those graded 1
	// or 2; CitedUnjudged those with no judgement (not relevant under the pooling
	// assumption, but perhaps only unseen).
	CitedDocs, CitedRelevant, CitedUnjudged int
}

// Noise is the share of cited documents not judged relevant (graded 0 or unjudged), NaN when
// nothing is cited.
func (m LeadMetrics) Noise() float64 { return ratio(m.CitedDocs-m.CitedRelevant, m.CitedDocs) }

// LeadOf scores an asof answer's summary against grades (FormatAsof only: the study's
// summaries cite no block). A block is credited with the best grade of its document and the
// documents folded into it (Block.Folded), as eval's group credit does; a summary with no
// claim leads with nothing and supports nothing.
func LeadOf(a Answer, grades Grades) LeadMetrics {
	m := LeadMetrics{Answerable: grades.HasAnswer()}
	if a.Format != FormatAsof {
		return m
	}
	grade := map[int]int{} // block N → best grade, -1 unjudged
	docOf := map[int]string{}
	for _, b := range a.Blocks {
		g, ok := grades[b.DocID]
		if !ok {
			g = -1
		}
		for _, f := range b.Folded {
			if h, ok := grades[f]; ok && h > g {
				g = h
			}
		}
		grade[b.N], docOf[b.N] = g, b.DocID
	}
	seen := map[int]bool{}
	for i, c := range Claims(a) {
		for _, n := range c.Cites {
			g, ok := grade[n]
			if !ok {
				continue // a bad citation: CitationsOf counts it
			}
			if g >= 2 {
				m.Support = true
				m.Lead = m.Lead || i == 0
			}
			if seen[n] {
				continue
			}
			seen[n] = true
			m.CitedDocs++
			switch {
			case g >= 1:
				m.CitedRelevant++
			case g < 0:
				m.CitedUnjudged++
			}
		}
	}
	return m
}
