// Package lifecycle is how asof reads documents that change: which texts are in force on a
// day, which versions are current, which texts a later one supersedes. It is pure logic over
// plain types: the index build resolves an index's documents into a Table (Resolve), the
// manifest names it, and retrieval asks it, row by row, what may be served as of a day
// (Table.Rows, Life.Allows). Nothing here reads a store or imports Temporal.
//
// Two kinds of document:
//   - News (the default): published on a day, better when fresh, looked back on for the
//     recency window. A news item is never "superseded"; it may have versions.
//   - Standing (regulations, circulars, policies, reports): in force from its effective day
//     until a later text supersedes it, however old. Retrieval applies no look-back window to
//     it and does not prefer fresher standing texts among those in force.
//
// As of a day A, one version of a document is served: the latest published by the end of A
// (a row whose doc_id is indexed and whose content differs is a new version from its
// publication). A standing text is served when it is in force on A: its effective day (the
// effective_at column, else the day it states it comes into force when that is after its
// publication, else its publication) is not after A, and no text that supersedes it is both
// published and in force by A. So knowing that a text was superseded never comes before the
// superseding text was published: nothing after the anchor reaches a result.
//
// What supersedes what (Resolve), strongest first:
//   - the input's supersedes column: doc_ids, or identifiers of other texts;
//   - what a text states: "in supersession of RBI/2024-25/12", "… Regulations, 2008 stand
//     repealed", «признать утратившим силу …», "…同时废止", matched to the identifiers and titles
//     of other texts (Identifiers, Read);
//   - the same provision of the same instrument restated later: two passages of "SEBI
//     (Investment Advisers) Regulations, 2013" that both start "Regulation 21(1)" — the later
//     one is the provision as amended (Provision, Instrument);
//   - a revised notice: "Auction of State Government Securities (Revised)" supersedes the
//     notices of that title from the last day before it, within RevisedWithinDays;
//   - a restatement, inferred (a soft link): a later passage of the same instrument that is the
//     older one's closest later passage, and it the newer one's closest earlier passage, with
//     embeddings at least RestatedCosine alike, neither naming another provision. Inferred links
//     do not hide the older text: retrieval ranks it right after the newer one and labels it.
//
// Chains resolve in time order (A superseded by B, B by C: A until B applies, B until C). A
// link that would have a text supersede one that is not older, a cycle, or a target that
// names no indexed text is a Warning with its reason, never a failure.
package lifecycle

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// Kinds of document (Doc.Kind; "" is News).
const (
	News     = schemas.KindNews
	Standing = schemas.KindStanding
)

// Kinds lists the kinds, for flags and messages.
var Kinds = []string{News, Standing}

// ParseKind reads a kind as a flag, a YAML value or a kind column gives it: "news",
// "standing" (any case, trimmed), "" for the default.
func ParseKind(s string) (string, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	switch k {
	case "", News, Standing:
		return k, nil
	}
	return "", fmt.Errorf("kind %q: use %s (dated news, fresher preferred) or %s (texts in force until superseded: regulations, circulars, policies)", s, News, Standing)
}

// IsStanding reports whether kind is Standing.
func IsStanding(kind string) bool { return kind == Standing }

// Doc is one indexed version of a document, as Resolve reads it.
type Doc struct {
	DocID string
	// Version is 1 for a document's first version, then 2, 3, … in publication order.
	Version int
	Kind    string
	// Published is when this version was published: from then on it is known.
	Published time.Time
	// Effective is when the text applies (zero: Published). A standing text is not in force
	// before it.
	Effective time.Time
	Title     string
	// Text is the version's text (its first chunk is enough for what Resolve reads).
	Text string
	// Supersedes are the input's supersedes column, split: doc_ids or identifiers.
	Supersedes []string
	// Vec is the embedding of its first chunk (L2-normalized), for inferred restatements; nil
	// turns that rule off for it.
	Vec []float32
}

// since is when d starts to count: published and in force.
func (d Doc) since() time.Time {
	if d.Effective.After(d.Published) {
		return d.Effective
	}
	return d.Published
}

// Bases of a supersession link (Link.Basis), strongest first.
const (
	BasisColumn    = "column"    // the input's supersedes column
	BasisStated    = "stated"    // the newer text says so
	BasisProvision = "provision" // the same provision of the same instrument, restated later
	BasisRevised   = "revised"   // a revised notice of the same title
	BasisRestated  = "restated"  // inferred: the closest later restatement (soft)
)

// Reasons a supersession ends a version's service (Entry.Reason).
const (
	ReasonSuperseded = "superseded"
	ReasonRestated   = "restated" // a soft link: ranked after its restatement, not hidden
)

// Link says that New supersedes Old (doc ids) from New's publication and effective day on.
type Link struct {
	Old    string `json:"old"`
	New    string `json:"new"`
	Basis  string `json:"basis"`
	Detail string `json:"detail,omitempty"`
	// Since is the first day Old is no longer served as current (New published and in force).
	Since time.Time `json:"since"`
	// Effective is New's effective day: "superseded by New on Effective".
	Effective time.Time `json:"effective"`
}

// Soft reports whether the link only ranks Old after New (an inferred restatement).
func (l Link) Soft() bool { return l.Basis == BasisRestated }

// Warning is a link that could not be taken, or a document that could not be read, and why.
type Warning struct {
	DocID  string `json:"doc_id"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// Warning reasons.
const (
	WarnMissingTarget = "missing_target" // a supersedes value names no indexed text
	WarnNotOlder      = "not_older"      // a text said to supersede one that is not older than it
	WarnCycle         = "cycle"          // texts that supersede each other
	WarnNotStanding   = "not_standing"   // a supersedes value names a news item, which is never in force
	WarnVersionOrder  = "version_order"  // a document's versions are published out of their order
	WarnLargeGroup    = "large_instrument"
)

// Entry is when one version of a document stops being served as current (the Table's row; the
// store keeps a Table as Parquet).
type Entry struct {
	DocID   string `parquet:"doc_id" json:"doc_id"`
	Version int32  `parquet:"version" json:"version"`
	// From, when set, is the first day a standing text is in force, after its publication:
	// before it, the text is known but not current.
	From time.Time `parquet:"from,timestamp(millisecond),optional" json:"from,omitzero"`
	// Replaced, when set, is the day the document's next version, ReplacedBy, is published:
	// from then on this version is never served, not even as history.
	Replaced   time.Time `parquet:"replaced,timestamp(millisecond),optional" json:"replaced,omitzero"`
	ReplacedBy int32     `parquet:"replaced_by" json:"replaced_by,omitempty"`
	// Until, when set, is the first day a standing text is superseded (Reason
	// ReasonSuperseded: no longer current; evolution still shows it as history) or ranked after
	// an inferred restatement (ReasonRestated). By and ByVersion are what superseded it,
	// Effective the day that took effect, Basis and Detail how it was found.
	Until     time.Time `parquet:"until,timestamp(millisecond),optional" json:"until,omitzero"`
	Reason    string    `parquet:"reason" json:"reason,omitempty"`
	By        string    `parquet:"by" json:"by,omitempty"`
	ByVersion int32     `parquet:"by_version" json:"by_version,omitempty"`
	Effective time.Time `parquet:"effective,timestamp(millisecond),optional" json:"effective,omitzero"`
	Basis     string    `parquet:"basis" json:"basis,omitempty"`
	Detail    string    `parquet:"detail" json:"detail,omitempty"`
}

// Soft reports whether the entry only ranks its version after its restatement.
func (e Entry) Soft() bool { return e.Reason == ReasonRestated }

// Options tune Resolve. DefaultOptions are what an index build uses.
type Options struct {
	// RestatedCosine is the least cosine of two passages' embeddings for an inferred
	// restatement; 0 turns the rule off.
	RestatedCosine float64
	// RevisedWithinDays is how far back a revised notice looks for the notice it revises.
	RevisedWithinDays int
	// MaxGroup is the most passages of one instrument compared pairwise for restatements
	// (larger instruments get a warning and no inferred links).
	MaxGroup int
}

// DefaultOptions: restatements at cosine 0.95 (multilingual-e5-small; on supersession-dev the
// ten annotated pairs lie at 0.916..0.997 and two passages of one instrument at 0.90 median),
// revised notices within 30 days, instruments of up to 5,000 passages.
func DefaultOptions() Options {
	return Options{RestatedCosine: 0.95, RevisedWithinDays: 30, MaxGroup: 5000}
}

// Table is what Resolve found: when each version stops being current, and why.
type Table struct {
	// Entries are sorted by doc id and version; one per version that ends or starts late.
	Entries []Entry
	// Links are every supersession taken, sorted by Old then New; Warnings what was not.
	Links    []Link
	Warnings []Warning
}

// Key names one version of a document.
type Key struct {
	DocID   string
	Version int32
}

// Stats counts t (schemas.LifecycleStats); standing is the number of standing documents
// resolved.
func (t Table) Stats(standing int) schemas.LifecycleStats {
	s := schemas.LifecycleStats{Standing: standing, ByBasis: map[string]int{}, Warnings: map[string]int{}}
	for _, e := range t.Entries {
		if !e.Replaced.IsZero() {
			s.Versions++
		}
		switch e.Reason {
		case ReasonSuperseded:
			s.Superseded++
		case ReasonRestated:
			s.Restated++
		}
	}
	for _, l := range t.Links {
		s.ByBasis[l.Basis]++
	}
	for _, w := range t.Warnings {
		s.Warnings[w.Reason]++
	}
	if len(s.ByBasis) == 0 {
		s.ByBasis = nil
	}
	if len(s.Warnings) == 0 {
		s.Warnings = nil
	}
	return s
}

// Resolve reads docs (every indexed version of every document that is standing or has more
// than one version; a news document with one version needs no entry) and returns when each
// version stops being current. It is deterministic: the same docs in any order give the same
// table.
func Resolve(docs []Doc, o Options) Table {
	docs = slices.Clone(docs)
	slices.SortFunc(docs, func(a, b Doc) int {
		return cmp.Or(strings.Compare(a.DocID, b.DocID), cmp.Compare(a.Version, b.Version), a.Published.Compare(b.Published))
	})
	var t Table
	ends := map[Key]Entry{}
	entry := func(k Key) Entry {
		e, ok := ends[k]
		if !ok {
			e.DocID, e.Version = k.DocID, k.Version
		}
		return e
	}
	// end records a supersession of version k: the earliest of one strength stands, and a hard
	// one beats a soft one.
	end := func(k Key, e Entry) {
		old := entry(k)
		if !old.Until.IsZero() && (old.Soft() == e.Soft() && !e.Until.Before(old.Until) || !old.Soft() && e.Soft()) {
			return
		}
		old.Until, old.Reason, old.By, old.ByVersion, old.Effective, old.Basis, old.Detail = e.Until, e.Reason, e.By, e.ByVersion, e.Effective, e.Basis, e.Detail
		ends[k] = old
	}
	// Versions: each version is current until the next is published.
	latest := map[string]Doc{} // the latest version of each document: what supersession reads
	first := map[string]Doc{}  // its first version: when it entered the record
	for i := 0; i < len(docs); {
		j := i
		for j < len(docs) && docs[j].DocID == docs[i].DocID {
			j++
		}
		vs := docs[i:j]
		for k := 0; k+1 < len(vs); k++ {
			cur, next := vs[k], vs[k+1]
			if next.Published.Before(cur.Published) {
				t.Warnings = append(t.Warnings, Warning{DocID: cur.DocID, Reason: WarnVersionOrder,
					Detail: fmt.Sprintf("version %d is published %s, before version %d (%s)", next.Version, day(next.Published), cur.Version, day(cur.Published))})
			}
			k := Key{cur.DocID, int32(cur.Version)}
			e := entry(k)
			e.Replaced, e.ReplacedBy = asofday.Start(next.Published), int32(next.Version)
			ends[k] = e
		}
		latest[vs[0].DocID], first[vs[0].DocID] = vs[len(vs)-1], vs[0]
		i = j
	}
	// A standing text that comes into force after its publication is not current before.
	for _, d := range docs {
		if IsStanding(d.Kind) && d.Effective.After(d.Published) && asofday.Start(d.Effective).After(asofday.Start(d.Published)) {
			k := Key{d.DocID, int32(d.Version)}
			e := entry(k)
			e.From = asofday.Start(d.Effective)
			ends[k] = e
		}
	}
	t.Links, t.Warnings = links(latest, first, o, t.Warnings)
	// Each link ends every version of Old that is still current when it takes effect.
	byDoc := map[string][]Doc{}
	for _, d := range docs {
		byDoc[d.DocID] = append(byDoc[d.DocID], d)
	}
	for _, l := range t.Links {
		reason := ReasonSuperseded
		if l.Soft() {
			reason = ReasonRestated
		}
		for _, v := range byDoc[l.Old] {
			end(Key{v.DocID, int32(v.Version)}, Entry{Until: l.Since, Reason: reason, By: l.New, ByVersion: int32(latest[l.New].Version),
				Effective: l.Effective, Basis: l.Basis, Detail: l.Detail})
		}
	}
	for _, e := range ends {
		t.Entries = append(t.Entries, e)
	}
	slices.SortFunc(t.Entries, func(a, b Entry) int {
		return cmp.Or(strings.Compare(a.DocID, b.DocID), cmp.Compare(a.Version, b.Version))
	})
	slices.SortFunc(t.Warnings, func(a, b Warning) int {
		return cmp.Or(strings.Compare(a.DocID, b.DocID), strings.Compare(a.Reason, b.Reason), strings.Compare(a.Detail, b.Detail))
	})
	return t
}

func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// node is what the supersession rules read of one standing document.
type node struct {
	doc        Doc // its latest version
	since      time.Time
	effective  time.Time
	instrument string
	revised    bool
	provision  string
	own        []string // its own identifiers
}

// links finds the supersession links among the standing documents (latest: each document's
// latest version; first: its first, whose publication and effective day are the document's).
func links(latest, first map[string]Doc, o Options, warns []Warning) ([]Link, []Warning) {
	var nodes []*node
	for id, d := range latest {
		if !IsStanding(d.Kind) {
			continue
		}
		f := first[id]
		n := &node{doc: d, since: asofday.Start(f.since()), effective: asofday.Start(cmp.Or(f.Effective, f.Published))}
		n.instrument, n.revised = Instrument(d.Title)
		n.provision = Provision(d.Text)
		n.own = owned(d.Title, d.Text)
		nodes = append(nodes, n)
	}
	slices.SortFunc(nodes, func(a, b *node) int { return strings.Compare(a.doc.DocID, b.doc.DocID) })
	byID := map[string]*node{}
	owners := map[string][]*node{}
	byInstrument := map[string][]*node{}
	var titles []string
	for _, n := range nodes {
		byID[n.doc.DocID] = n
		for _, id := range n.own {
			owners[id] = append(owners[id], n)
		}
		if n.instrument != "" {
			if _, ok := byInstrument[n.instrument]; !ok {
				titles = append(titles, n.instrument)
			}
			byInstrument[n.instrument] = append(byInstrument[n.instrument], n)
		}
	}
	slices.Sort(titles)
	seen := map[[2]string]bool{}
	claims := map[[2]string]bool{} // column and stated links, taken or not
	var out, refused []Link
	add := func(old, nw *node, basis, detail string) {
		if old == nw {
			return
		}
		explicit := basis == BasisColumn || basis == BasisStated
		if explicit {
			if claims[[2]string{old.doc.DocID, nw.doc.DocID}] {
				return
			}
			claims[[2]string{old.doc.DocID, nw.doc.DocID}] = true
		}
		if seen[[2]string{old.doc.DocID, nw.doc.DocID}] {
			return
		}
		if !old.since.Before(nw.since) {
			if explicit { // Effective carries the old text's day for the warning
				refused = append(refused, Link{Old: old.doc.DocID, New: nw.doc.DocID, Detail: detail, Since: nw.since, Effective: old.since})
			}
			return
		}
		seen[[2]string{old.doc.DocID, nw.doc.DocID}] = true
		out = append(out, Link{Old: old.doc.DocID, New: nw.doc.DocID, Basis: basis, Detail: detail, Since: nw.since, Effective: nw.effective})
	}
	// The supersedes column and what texts state, matched to doc ids, identifiers and titles.
	for _, n := range nodes {
		for _, ref := range n.doc.Supersedes {
			ref = strings.TrimSpace(ref)
			if ref == "" {
				continue
			}
			if t, ok := byID[ref]; ok {
				add(t, n, BasisColumn, ref)
				continue
			}
			if _, ok := latest[ref]; ok {
				warns = append(warns, Warning{DocID: n.doc.DocID, Reason: WarnNotStanding, Detail: fmt.Sprintf("supersedes %s, a news item (never in force): ignored", ref)})
				continue
			}
			targets := owners[Norm(ref)]
			if len(targets) == 0 {
				targets = byInstrument[Norm(ref)]
			}
			if len(targets) == 0 {
				warns = append(warns, Warning{DocID: n.doc.DocID, Reason: WarnMissingTarget, Detail: fmt.Sprintf("supersedes %q: no indexed text has that doc_id, identifier or title", ref)})
			}
			for _, t := range targets {
				add(t, n, BasisColumn, ref)
			}
		}
		st := Read(n.doc.Text, titles)
		for _, ref := range st.Refs {
			if contains(n.own, ref) || ref == n.instrument {
				continue
			}
			targets := owners[ref]
			if len(targets) == 0 {
				targets = byInstrument[ref]
			}
			for _, t := range targets {
				add(t, n, BasisStated, ref)
			}
		}
	}
	// The same provision of the same instrument, and revised notices.
	instruments := make([]string, 0, len(byInstrument))
	for k := range byInstrument {
		instruments = append(instruments, k)
	}
	slices.Sort(instruments)
	for _, k := range instruments {
		group := byInstrument[k]
		for _, nw := range group {
			for _, old := range group {
				if nw.provision != "" && nw.provision == old.provision {
					add(old, nw, BasisProvision, nw.provision)
				}
			}
		}
		revisedNotices(group, o, add)
	}
	// Inferred restatements.
	if o.RestatedCosine > 0 {
		for _, k := range instruments {
			group := byInstrument[k]
			if len(group) > o.MaxGroup {
				warns = append(warns, Warning{DocID: group[0].doc.DocID, Reason: WarnLargeGroup,
					Detail: fmt.Sprintf("%d passages of %q: more than %d, so no restatements are inferred among them", len(group), k, o.MaxGroup)})
				continue
			}
			restatements(group, o, seen, add)
		}
	}
	warns = cycles(refused, claims, seen, warns)
	slices.SortFunc(out, func(a, b Link) int {
		return cmp.Or(strings.Compare(a.Old, b.Old), strings.Compare(a.New, b.New))
	})
	return out, warns
}

// owned are the identifiers a text is known by: those in its title, and one its text starts
// with ("RBI/2025-26/252 … Master Direction …"). An identifier further on is a citation of
// another text ("as required under RBI/2019-20/1"), not its own.
func owned(title, text string) []string {
	own := Identifiers(title)
	text = strings.TrimSpace(text)
	for _, re := range idPatterns {
		if loc := re.FindStringIndex(text); loc != nil && loc[0] == 0 {
			if id := Norm(text[loc[0]:loc[1]]); !contains(own, id) {
				own = append(own, id)
			}
		}
	}
	return own
}

// revisedNotices links each revised notice of group to the notices of its base title published
// on the last day before it (within o.RevisedWithinDays): each of those is superseded by the
// revised notice most like it.
func revisedNotices(group []*node, o Options, add func(old, nw *node, basis, detail string)) {
	var revised []*node
	for _, n := range group {
		if n.revised {
			revised = append(revised, n)
		}
	}
	if len(revised) == 0 {
		return
	}
	byDay := map[time.Time][]*node{}
	for _, n := range revised {
		byDay[n.since] = append(byDay[n.since], n)
	}
	days := make([]time.Time, 0, len(byDay))
	for d := range byDay {
		days = append(days, d)
	}
	slices.SortFunc(days, func(a, b time.Time) int { return a.Compare(b) })
	for _, d := range days {
		var last time.Time
		for _, n := range group {
			if n.since.Before(d) && !n.since.Before(d.AddDate(0, 0, -o.RevisedWithinDays)) && n.since.After(last) {
				last = n.since
			}
		}
		if last.IsZero() {
			continue
		}
		for _, old := range group {
			if !old.since.Equal(last) {
				continue
			}
			best, bestSim := byDay[d][0], -2.0
			for _, nw := range byDay[d] {
				if s := similarity(old, nw); s > bestSim {
					best, bestSim = nw, s
				}
			}
			add(old, best, BasisRevised, "revised notice of "+day(last))
		}
	}
}

// restatements links each passage of group to its closest later passage when they are each
// other's closest (later, earlier) passages at cosine o.RestatedCosine or more and do not name
// different provisions.
func restatements(group []*node, o Options, seen map[[2]string]bool, add func(old, nw *node, basis, detail string)) {
	type best struct {
		to  *node
		sim float64
	}
	later, earlier := map[*node]best{}, map[*node]best{}
	for _, a := range group {
		for _, b := range group {
			if !a.since.Before(b.since) || a.doc.Vec == nil || b.doc.Vec == nil || len(a.doc.Vec) != len(b.doc.Vec) {
				continue
			}
			if a.provision != "" && b.provision != "" && a.provision != b.provision {
				continue
			}
			s := cosine(a.doc.Vec, b.doc.Vec)
			if cur, ok := later[a]; !ok || s > cur.sim || (s == cur.sim && b.doc.DocID < cur.to.doc.DocID) {
				later[a] = best{b, s}
			}
			if cur, ok := earlier[b]; !ok || s > cur.sim || (s == cur.sim && a.doc.DocID < cur.to.doc.DocID) {
				earlier[b] = best{a, s}
			}
		}
	}
	for _, a := range group {
		l, ok := later[a]
		if !ok || l.sim < o.RestatedCosine || earlier[l.to].to != a || seen[[2]string{a.doc.DocID, l.to.doc.DocID}] || !restates(l.to.doc.Text, a.doc.Text) {
			continue
		}
		add(a, l.to, BasisRestated, fmt.Sprintf("cosine %.3f", l.sim))
	}
}

// RestatedCover is the least share of an older sentence's words a restatement must hold.
const RestatedCover = 0.5

// restates reports whether text restates every provision of old: each sentence of old with at
// least three words (numbers aside: they are what an amendment changes) shares at least
// RestatedCover of them with text. A passage that states three provisions is not restated by a
// later passage that amends one of them.
func restates(text, old string) bool {
	have := map[string]bool{}
	for _, t := range plainWords(text) {
		have[t] = true
	}
	for _, s := range textnorm.Sentences(old) {
		var words, shared int
		for _, t := range plainWords(s) {
			words++
			if have[t] {
				shared++
			}
		}
		if words >= 3 && float64(shared) < RestatedCover*float64(words) {
			return false
		}
	}
	return true
}

// plainWords are the distinct words of s as written (lower case, no stemming: "investors" is
// not "investment"), of three letters or more, stop-words and numbers left out.
func plainWords(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len([]rune(w)) < 3 || textnorm.IsStopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// similarity is how alike two nodes' passages are: their embeddings' cosine, else the share of
// words they share.
func similarity(a, b *node) float64 {
	if a.doc.Vec != nil && len(a.doc.Vec) == len(b.doc.Vec) {
		return cosine(a.doc.Vec, b.doc.Vec)
	}
	wa, wb := words(a.doc.Text), words(b.doc.Text)
	n := 0
	for w := range wa {
		if wb[w] {
			n++
		}
	}
	if len(wa)+len(wb) == 0 {
		return 0
	}
	return float64(n) / math.Sqrt(float64(len(wa))*float64(len(wb))+1)
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isWordRune(r) }) {
		out[w] = true
	}
	return out
}

func isWordRune(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// cycles turns the refusals of claims (column or stated links that ran back in time) whose
// reverse was claimed too into one cycle warning each: the texts say they supersede each other.
func cycles(refused []Link, claims, taken map[[2]string]bool, warns []Warning) []Warning {
	for _, l := range refused {
		switch {
		case claims[[2]string{l.New, l.Old}] && taken[[2]string{l.New, l.Old}]:
			warns = append(warns, Warning{DocID: l.New, Reason: WarnCycle,
				Detail: fmt.Sprintf("%s and %s say they supersede each other: the newer, %s, is taken to supersede the other", l.Old, l.New, l.Old)})
		case claims[[2]string{l.New, l.Old}]:
			if l.Old < l.New { // same day: one warning for the pair
				warns = append(warns, Warning{DocID: l.Old, Reason: WarnCycle, Detail: fmt.Sprintf("%s and %s say they supersede each other on one day: neither link is taken", l.Old, l.New)})
			}
		default:
			warns = append(warns, Warning{DocID: l.New, Reason: WarnNotOlder,
				Detail: fmt.Sprintf("says it supersedes %s (%s), which is not older (%s, against %s)", l.Old, l.Detail, day(l.Effective), day(l.Since))})
		}
	}
	return warns
}
