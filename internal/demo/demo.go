// Package demo generates the small, fictional, bilingual (English and Russian) dated news
// corpus that `asof demo` indexes and questions. Everything is deterministic: the stories are
// fixed, and the variation (times of day, which channels repost, how a repost is edited) comes
// from a fixed-seed PCG, so Documents and WriteParquet give byte-for-byte the same output on
// every run and platform.
//
// The corpus follows a fictional country, Nordavia (currency: the krona), from 2026-01-05 to
// 2026-04-15: its central bank's key rate (6.50% held in January, raised to 7.25% on
// 2026-02-12 and to 8.00% on 2026-03-19, cut to 7.50% on 2026-04-09), a change of finance
// minister (Anna Keller replaced by Pavel Orlov on 2026-02-26), the delayed Lindholm bridge,
// the grain harvest outlook under a drought, and unrelated filler. The demo asks its questions
// as of Anchor (2026-03-31), so the April documents exist but must never reach an answer.
package demo

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"gopkg.in/yaml.v3"

	"github.com/asofrag/asof/schemas"
)

// Anchor is the demo's as-of day: the questions are answered as of this day, and the
// documents published after it (the April rate cut among them) must not appear in answers.
const Anchor = "2026-03-31"

// AnchorTime is Anchor as midnight UTC.
func AnchorTime() time.Time { return mustDay(Anchor) }

// URLPrefix starts every document URL: URL = URLPrefix + Source + "/" + DocID. The .invalid
// top-level domain is reserved and never resolves.
const URLPrefix = "https://demo.asof.invalid/"

// Topic is one digest topic of the demo.
type Topic struct {
	Name  string `yaml:"name"`
	Query string `yaml:"query"`
	// Mode is the query mode; "" lets asof pick one.
	Mode string `yaml:"mode,omitempty"`
	// Story is the label (schemas.Document.Topic) of the corpus story the topic asks about:
	// what a test checks a digest line against. It is not part of the topics file.
	Story string `yaml:"-"`
}

// Topics are the four digest topics of the demo, one of them in Russian.
func Topics() []Topic {
	return []Topic{
		{Name: "Key rate", Query: "central bank key rate decision", Story: "key-rate"},
		{Name: "Finance minister", Query: "who is the finance minister", Story: "minister"},
		{Name: "Lindholm bridge", Query: "Lindholm bridge construction", Story: "bridge"},
		{Name: "Урожай", Query: "прогноз урожая зерна", Story: "harvest"},
	}
}

// TopicsYAML is Topics in the layout of a topics file ("topics:" then a list of name, query
// and, when set, mode), as yaml.v3 writes it.
func TopicsYAML() []byte {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	err := enc.Encode(struct {
		Topics []Topic `yaml:"topics"`
	}{Topics()})
	if err == nil {
		err = enc.Close()
	}
	if err != nil { // a fixed value of plain strings always encodes
		panic(fmt.Sprintf("demo: encode topics: %v", err))
	}
	return buf.Bytes()
}

// Query is one extra demo question beyond the digest topics.
type Query struct {
	Title string
	Query string
	// AsOf is the day it is asked as of (YYYY-MM-DD); empty: Anchor.
	AsOf string
	// Mode is the query mode ("evolution", "window"); "" lets asof pick one.
	Mode string
	// From and To bound a window query (YYYY-MM-DD, inclusive); empty otherwise.
	From, To string
}

// Queries are the extra demo questions: one evolution and one window query, then documents
// that change (Changes) read as of their days: the reserve requirement before the circular that
// supersedes it applies and after, and the edited krona post.
func Queries() []Query {
	return []Query{
		{Title: "Key rate since January", Query: "how has the key rate changed since January", Mode: "evolution"},
		{Title: "Key rate in February", Query: "key rate decision in February 2026", Mode: "window", From: "2026-02-01", To: "2026-02-28"},
		{Title: "Reserve requirement, as of 2026-02-25 (the new circular is out, not yet in force)", Query: "required reserves of banks", AsOf: "2026-02-25"},
		{Title: "Reserve requirement, as of " + Anchor + " (the old circular superseded)", Query: "required reserves of banks"},
		{Title: "The krona after the February hike, as of " + Anchor + " (the post was edited)", Query: "krona after the surprise rate hike"},
	}
}

// Circulars of the central bank: standing texts, the second superseding the first.
const (
	CircularOld = "demo-circ-03"
	CircularNew = "demo-circ-09"
)

// Changes are the demo's documents that change, a second input file beside Documents: an
// edited post (the krona's first report after the February hike, 1.2% edited to 1.4% the next
// day: its version 2), a correction (the Russian report of the Lindholm bridge's cost, 2.4
// corrected to 2.6 billion krona the next day) and two circulars of the central bank, standing
// texts (kind "standing"): No. 3/2026 sets required reserves at 3% on 2026-01-15, and No.
// 9/2026, published 2026-02-20, supersedes it with 4% "with effect from 1 March 2026".
func Changes() []schemas.Document {
	docs := Documents()
	find := func(source, title string) schemas.Document {
		for _, d := range docs {
			if d.Source == source && d.Title == title {
				return d
			}
		}
		panic("demo: no " + source + " post titled " + title) // the story table changed
	}
	edit := find("nordavia-wire", "Krona strengthens after surprise rate hike")
	edit.PublishedAt = edit.PublishedAt.Add(26 * time.Hour)
	edit.Text = strings.Replace(edit.Text, "rose 1.2%", "rose 1.4%", 1) + " (Edited: the krona's gain was 1.4%, not 1.2%.)"
	fix := find("vesti-nordavia", "Стоимость моста Линдхольм выросла до 2,4 млрд крон")
	fix.PublishedAt = fix.PublishedAt.Add(24 * time.Hour)
	fix.Title = "Стоимость моста Линдхольм выросла до 2,6 млрд крон"
	fix.Text = "Исправление: смета строительства моста Линдхольм выросла с 1,9 до 2,6 млрд крон, а не до 2,4 млрд, как сообщалось ранее. Министерство транспорта запросит дополнительное финансирование."
	w := 1.0
	circular := func(id, day, title, text string) schemas.Document {
		return schemas.Document{DocID: id, PublishedAt: mustDay(day).Add(10*time.Hour + 30*time.Minute), Title: title, Text: text,
			Source: "cbn-press", URL: URLPrefix + "cbn-press/" + id, SourceWeight: &w, Topic: "key-rate", Lang: "en", Kind: schemas.KindStanding}
	}
	return []schemas.Document{
		circular(CircularOld, "2026-01-15", "CBN Circular No. 3/2026: required reserves of banks",
			"Banks shall hold required reserves of 3% of their deposits with the Central Bank of Nordavia."),
		edit,
		fix,
		circular(CircularNew, "2026-02-20", "CBN Circular No. 9/2026: required reserves of banks",
			"In supersession of CBN Circular No. 3/2026, banks shall hold required reserves of 4% of their deposits with the Central Bank of Nordavia with effect from 1 March 2026."),
	}
}

// Documents returns the demo corpus, sorted by PublishedAt then DocID. DocIDs run "demo-0001",
// "demo-0002", … in publication order. Each call builds a fresh slice with the same contents.
func Documents() []schemas.Document {
	g := generator{rng: rand.NewPCG(seed1, seed2)}
	for _, s := range stories {
		g.story(s)
	}
	docs := g.docs
	slices.SortStableFunc(docs, func(a, b schemas.Document) int { return a.PublishedAt.Compare(b.PublishedAt) })
	for i := range docs {
		docs[i].DocID = fmt.Sprintf("demo-%04d", i+1)
		docs[i].URL = URLPrefix + docs[i].Source + "/" + docs[i].DocID
	}
	return docs
}

// WriteParquet writes docs as one Parquet file of canonical document rows.
func WriteParquet(w io.Writer, docs []schemas.Document) error {
	pw := parquet.NewGenericWriter[schemas.Document](w)
	if _, err := pw.Write(docs); err != nil {
		return fmt.Errorf("write demo documents: %w", err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("close demo parquet: %w", err)
	}
	return nil
}

// The seed of every variation in the corpus. Changing it changes times and reposts, not facts.
const (
	seed1 = 20260331
	seed2 = 0x6e6f7264 // "nord"
)

// post is one title and text in one language.
type post struct{ title, text string }

// story is one news item: first posted by source in lang, reposted with small edits by other
// channels of the same language, and translated into the other language.
type story struct {
	day    string // publication day (UTC) of the first post
	topic  string
	lang   string // language of the first post: "en" or "ru"
	source string // who posts first
	en, ru post   // the item in each language; the one not in lang may be empty (no translation)
	// alt is a reworded version of the first post (same language), used by its first repost.
	alt post
	// reposts are same-language reposts of the first post; trReposts of the translation.
	reposts, trReposts int
}

// Sources that are official (the central bank, the government) get SourceWeight 1.0.
var official = []string{"cbn-press", "gov-nordavia"}

// channels are the reposting channels per language, for finance topics and for the others.
var (
	enFinance = []string{"nordavia-wire", "capital-daily", "tg:@nordfinance", "tg:@nordmarkets"}
	enGeneral = []string{"nordavia-wire", "capital-daily", "tg:@nordavia_news"}
	ruFinance = []string{"vesti-nordavia", "tg:@nordavia_ru", "tg:@krona_ru"}
	ruGeneral = []string{"vesti-nordavia", "tg:@nordavia_ru", "tg:@sever_novosti"}
)

// tags are the hashtags a repost may append, per topic and language.
var tags = map[string][2]string{ // topic → {en, ru}; looked up by key only, never ranged over
	"key-rate": {"#rates", "#ставка"},
	"minister": {"#politics", "#политика"},
	"bridge":   {"#Lindholm", "#Линдхольм"},
	"harvest":  {"#agriculture", "#урожай"},
	"misc":     {"#Nordavia", "#Нордавия"},
}

type generator struct {
	rng  *rand.PCG
	docs []schemas.Document
}

// intn is a uniform-enough int in [0, n), from the PCG's raw output only, so the sequence does
// not depend on how math/rand/v2 maps random bits to ranges.
func (g *generator) intn(n int) int { return int(g.rng.Uint64() % uint64(n)) }

func (g *generator) story(s story) {
	day := mustDay(s.day)
	t0 := day.Add(time.Duration(6+g.intn(11))*time.Hour + time.Duration(g.intn(60))*time.Minute)
	if slices.Contains(official, s.source) {
		t0 = day.Add(10*time.Hour + 30*time.Minute) // press releases go out at a fixed time
	}
	main, tr, trLang := s.en, s.ru, "ru"
	if s.lang == "ru" {
		main, tr, trLang = s.ru, s.en, "en"
	}
	used := []string{s.source}
	g.emit(s, s.source, s.lang, main, t0)
	for r := range s.reposts {
		p := main
		if r == 0 && s.alt.text != "" {
			p = s.alt
		}
		src := g.pick(s.topic, s.lang, &used)
		g.emit(s, src, s.lang, g.edit(p, s.lang, s.topic, p.text != main.text), t0.Add(g.delay(20, 22*60)))
	}
	if tr.text == "" {
		return
	}
	t1 := t0.Add(g.delay(30, 10*60))
	g.emit(s, g.pick(s.topic, trLang, &used), trLang, tr, t1)
	for range s.trReposts {
		src := g.pick(s.topic, trLang, &used)
		g.emit(s, src, trLang, g.edit(tr, trLang, s.topic, false), t1.Add(g.delay(20, 12*60)))
	}
}

// delay is a whole number of minutes in [lo, hi].
func (g *generator) delay(lo, hi int) time.Duration {
	return time.Duration(lo+g.intn(hi-lo+1)) * time.Minute
}

// pick chooses a channel of lang for topic that has not posted this story yet.
func (g *generator) pick(topic, lang string, used *[]string) string {
	pool := enGeneral
	switch {
	case lang == "en" && (topic == "key-rate" || topic == "minister"):
		pool = enFinance
	case lang == "ru" && (topic == "key-rate" || topic == "minister"):
		pool = ruFinance
	case lang == "ru":
		pool = ruGeneral
	}
	var free []string
	for _, c := range pool {
		if !slices.Contains(*used, c) {
			free = append(free, c)
		}
	}
	if len(free) == 0 {
		panic("demo: not enough channels to repost a story") // the story table asks too much
	}
	c := free[g.intn(len(free))]
	*used = append(*used, c)
	return c
}

// edit makes a repost: a flag or "#breaking" in front, a hashtag behind, a different title.
// Unless the text is already reworded, at least one of the text edits is made.
func (g *generator) edit(p post, lang, topic string, reworded bool) post {
	prefixes := []string{"", "#breaking ", "⚡ ", "🔴 "}
	titles := []string{"%s", "BREAKING: %s", "%s (update)"}
	suffixes := []string{"", " " + tags[topic][0], " #Nordavia"}
	if lang == "ru" {
		prefixes = []string{"", "#срочно ", "⚡ ", "❗️ "}
		titles = []string{"%s", "СРОЧНО: %s", "%s (обновлено)"}
		suffixes = []string{"", " " + tags[topic][1], " #Нордавия"}
	}
	pre, suf, ti := g.intn(len(prefixes)), g.intn(len(suffixes)), g.intn(len(titles))
	if topic == "misc" { // no "#breaking" on a hockey score
		pre, ti = 0, ti%2*2 // "%s" or "… (update)"
	}
	if pre == 0 && suf == 0 && !reworded {
		suf = 1
	}
	return post{title: fmt.Sprintf(titles[ti], p.title), text: prefixes[pre] + p.text + suffixes[suf]}
}

func (g *generator) emit(s story, source, lang string, p post, at time.Time) {
	d := schemas.Document{
		PublishedAt: at,
		Title:       p.title,
		Text:        p.text,
		Source:      source,
		Topic:       s.topic,
		Lang:        lang,
	}
	if slices.Contains(official, source) {
		w := 1.0
		d.SourceWeight = &w
	}
	g.docs = append(g.docs, d)
}

func mustDay(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(fmt.Sprintf("demo: bad day %q: %v", s, err))
	}
	return t
}
