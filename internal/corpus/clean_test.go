package corpus

import (
	"context"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// TestBoilerplateIsRemovedAtIngest: footers, handles and hashtag tails leave the stored text;
// a channel's footer seen at the end of 5 of its posts is learned from the file; a row that is
// nothing but boilerplate is quarantined with its reason, and the counts still reconcile.
func TestBoilerplateIsRemovedAtIngest(t *testing.T) {
	rows := []stringDated{
		{"r1", ptr("2024-03-01"), "", "Рецессии нет, заявил Силуанов. Подписаться на РИА Новости / Все наши каналы", "Риа Новости"},
		{"r2", ptr("2024-03-01"), "", "Подписаться на РИА Новости / Все наши каналы", "Риа Новости"},
		{"b1", ptr("2024-03-02"), "", "Юань подорожал до 13,5 рубля. @bankrollo", "Банки, деньги, два офшора"},
		{"e1", ptr("2024-03-02"), "Rates", "The key rate was raised. #rates #economy", "demo"},
		{"e2", ptr("2024-03-02"), "", "🔥🔥🔥", "demo"},
	}
	for i, text := range []string{"Кофе подорожал.", "Какао подорожало.", "Сахар подешевел.", "Чай подорожал.", "Молоко подорожало."} {
		rows = append(rows, stringDated{string(rune('k' + i)), ptr("2024-03-03"), "", text + " 🔵 Bloomberg", "Блумберг"})
	}
	rows = append(rows, stringDated{"k9", ptr("2024-03-04"), "", "🔵 Bloomberg", "Блумберг"})
	var removed []string
	l := NewLoader(Options{Removed: func(id string, rs []textnorm.Removal) {
		for _, r := range rs {
			removed = append(removed, id+" "+r.Rule)
		}
	}})
	res, err := load(t, l, writeParquet(t, rows), "tg.parquet")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range res.docs {
		got[d.DocID] = d.Text
	}
	want := map[string]string{
		"r1": "Рецессии нет, заявил Силуанов.", "b1": "Юань подорожал до 13,5 рубля.", "e1": "The key rate was raised.",
		"k": "Кофе подорожал.", "l": "Какао подорожало.", "m": "Сахар подешевел.", "n": "Чай подорожал.", "o": "Молоко подорожало.",
	}
	for id, text := range want {
		if got[id] != text {
			t.Errorf("%s: text %q, want %q", id, got[id], text)
		}
	}
	if len(got) != len(want) {
		t.Errorf("documents %v, want %d", got, len(want))
	}
	var quarantined []string
	for _, q := range res.rejects {
		if q.Reason != schemas.ReasonBoilerplate || !strings.Contains(q.Detail, "only boilerplate") {
			t.Errorf("reject %+v: want reason %s with a detail", q, schemas.ReasonBoilerplate)
		}
		quarantined = append(quarantined, q.DocID)
	}
	slices.Sort(quarantined)
	if !slices.Equal(quarantined, []string{"e2", "k9", "r2"}) {
		t.Errorf("quarantined %v, want e2, k9, r2", quarantined)
	}
	tot := l.Total()
	if !tot.Reconciles() || tot.Read != int64(len(rows)) || tot.Quarantined[schemas.ReasonBoilerplate] != 3 || tot.Tidied != int64(len(rows)-0) {
		t.Errorf("stats %+v: want %d read, reconciled, 3 boilerplate_only, %d tidied", tot, len(rows), len(rows))
	}
	if tot.TidiedRunes <= 0 || tot.TidiedRunes >= tot.TextRunes {
		t.Errorf("tidied %d of %d runes", tot.TidiedRunes, tot.TextRunes)
	}
	for _, w := range []string{"r1 subscribe", "b1 link_only", "e1 hashtags", "k learned", "k9 learned", "e2 emoji_only"} {
		if !slices.Contains(removed, w) {
			t.Errorf("Removed was not told %q (told %q)", w, removed)
		}
	}
}

// TestTelegramCleaning runs the ingest cleaning over tg-finance-ru and checks what a reader of
// its digests would see: no channel footer left (by the detector, Tidy with what the file
// teaches, and by the known signatures), no doubled word or emoji bullet inside a sentence, a
// display title for every post (none has a title), and a bounded share of text removed.
func TestTelegramCleaning(t *testing.T) {
	const path = "../../../shared/data/tg-finance-ru/docs.parquet"
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	defer f.Close()
	st, _ := f.Stat()
	type removal struct{ id, rule, text string }
	var removals []removal
	l := NewLoader(Options{Removed: func(id string, rs []textnorm.Removal) {
		for _, r := range rs {
			removals = append(removals, removal{id, r.Rule, r.Text})
		}
	}})
	var docs []schemas.Document
	err = l.ReadFile(context.Background(), f, st.Size(), "docs.parquet",
		func(d schemas.Document) error { docs = append(docs, d); return nil },
		func(q schemas.QuarantineRow) error { t.Errorf("quarantined %+v", q); return nil })
	if err != nil {
		t.Fatal(err)
	}
	tot := l.Total()
	if !tot.Reconciles() || tot.Read != 5574 {
		t.Fatalf("stats %+v", tot)
	}

	// The detector: Tidy with the footers this file teaches finds nothing more.
	raw, err := parquet.ReadFile[struct {
		Text   string `parquet:"text"`
		Source string `parquet:"source"`
	}](path)
	if err != nil {
		t.Fatal(err)
	}
	footers := textnorm.NewFooters(textnorm.DefaultFooterOptions())
	for _, r := range raw {
		footers.Add(r.Source, textnorm.Clean(r.Text))
	}
	signatures := []string{"Все наши каналы", "Подписаться на РИА Новости", "Замечено Шпионом РЦБ.", "@StockSpy_bot", "Bloomberg",
		"@bankrollo", "The Экономист", "The Economist", "𝔼ℂ𝕆ℕ𝕆𝕄𝕀𝕂𝔸", "BloomEconomy", "Getty Images", "Информационная поддержка"}
	var left, signed, doubled, glued, bare int
	for _, d := range docs {
		if _, more := textnorm.Tidy(d.Text, d.Source, footers); len(more) > 0 {
			left++
			t.Errorf("%s: boilerplate left: %q", d.DocID, more)
		}
		for _, s := range signatures {
			if strings.HasSuffix(d.Text, s) && !attribution(d.Text, s) && knownMisses[d.DocID] == "" {
				signed++
				t.Errorf("%s ends with the signature %q: …%s", d.DocID, s, tail(d.Text, 80))
			}
		}
		for _, s := range textnorm.Sentences(d.Text) {
			if w := doubledAtJoin(s); w != "" {
				doubled++
				t.Errorf("%s: doubled %q at a join in %q", d.DocID, w, s)
			}
			if bulletInside(s) {
				glued++
				t.Errorf("%s: an emoji bullet inside %q", d.DocID, s)
			}
		}
		title := textnorm.DisplayTitle(d.Title, d.Text, 0)
		if title == "" || title == d.DocID || hexID.MatchString(title) {
			bare++
			t.Errorf("%s: display title %q", d.DocID, title)
		}
	}
	share := float64(tot.TidiedRunes) / float64(tot.TextRunes)
	t.Logf("%d posts: %d tidied, %d of %d runes removed (%.2f%%); %d removals; footers left %d, signatures %d, doubled %d, glued %d, bare titles %d",
		len(docs), tot.Tidied, tot.TidiedRunes, tot.TextRunes, 100*share, len(removals), left, signed, doubled, glued, bare)
	// The budget: the channels' footers are about 2.6% of the text (measured); much more would
	// be news removed, much less footers left.
	if share < 0.02 || share > 0.035 {
		t.Errorf("removed %.2f%% of the text, want 2%%..3.5%%", 100*share)
	}
	rules := map[string]int{}
	for _, r := range removals {
		rules[r.rule]++
		if n := utf8.RuneCountInString(r.text); n > 160 {
			t.Errorf("%s: a %d-rune removal is more than a footer: %q", r.id, n, r.text)
		}
	}
	t.Logf("removals by rule: %v", rules)
	logSamples(t, removals, func(r removal) (string, string, string) { return r.id, r.rule, r.text })
}

// logSamples logs 20 removals drawn at random (seeded), then 20 of those whose text is
// removed only once: what a reviewer reads to check that no news went.
func logSamples[R any](t *testing.T, removals []R, fields func(R) (id, rule, text string)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(24, 2))
	for _, i := range rng.Perm(len(removals))[:min(20, len(removals))] {
		id, rule, text := fields(removals[i])
		t.Logf("sample %s %-12s %q", id, rule, text)
	}
	seen := map[string]int{}
	for _, r := range removals {
		_, _, text := fields(r)
		seen[text]++
	}
	var rare []R
	for _, r := range removals {
		if _, _, text := fields(r); seen[text] == 1 {
			rare = append(rare, r)
		}
	}
	for _, i := range rng.Perm(len(rare))[:min(20, len(rare))] {
		id, rule, text := fields(rare[i])
		t.Logf("rare %s %-12s %q", id, rule, text)
	}
}

// TestNewsSiteCleaning runs the ingest cleaning over realtimeqa (English news sites, first
// 1,200 characters of each article): newsletter, "read more" and related-story lines go, no
// article becomes empty, and the share removed stays near what was measured.
func TestNewsSiteCleaning(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 26,776 articles")
	}
	const path = "../../../shared/data/realtimeqa/docs.parquet"
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	defer f.Close()
	st, _ := f.Stat()
	type removal struct{ id, rule, text string }
	var removals []removal
	l := NewLoader(Options{Removed: func(id string, rs []textnorm.Removal) {
		for _, r := range rs {
			removals = append(removals, removal{id, r.Rule, r.Text})
		}
	}})
	var left int
	err = l.ReadFile(context.Background(), f, st.Size(), "docs.parquet",
		func(d schemas.Document) error {
			for line := range strings.SplitSeq(d.Text, "\n") {
				if strings.HasPrefix(line, "Need a break? Play the USA TODAY") || strings.HasPrefix(line, "Sign up for CNN") || line == "Read More" {
					left++
					t.Errorf("%s: promo line left: %q", d.DocID, line)
				}
			}
			return nil
		},
		func(q schemas.QuarantineRow) error { t.Errorf("quarantined %+v", q); return nil })
	if err != nil {
		t.Fatal(err)
	}
	tot := l.Total()
	share := float64(tot.TidiedRunes) / float64(tot.TextRunes)
	t.Logf("%d articles: %d tidied, %d of %d runes removed (%.2f%%), %d removals", tot.Documents, tot.Tidied, tot.TidiedRunes, tot.TextRunes, 100*share, len(removals))
	if !tot.Reconciles() || tot.Read != 26776 || tot.Documents != tot.Read {
		t.Fatalf("stats %+v", tot)
	}
	if share < 0.008 || share > 0.02 {
		t.Errorf("removed %.2f%% of the text, want 0.8%%..2%%", 100*share)
	}
	rules := map[string]int{}
	for _, r := range removals {
		rules[r.rule]++
	}
	t.Logf("removals by rule: %v", rules)
	logSamples(t, removals, func(r removal) (string, string, string) { return r.id, r.rule, r.text })
}

// knownMisses are footers the cleaning leaves, read one by one: a signature glued to a typo.
var knownMisses = map[string]string{
	"af6586a5f51bd211": "«…поясняли в ЦБ. Щ𝔼ℂ𝕆ℕ𝕆𝕄𝕀𝕂𝔸»: the signature glued to a stray letter is no word the channel ends with",
}

// hexID is how a document id looks: what a source must never be shown as.
var hexID = regexp.MustCompile(`^[0-9a-f]{12,}$`)

// attribution reports whether text ends with sig as an attribution ("… — Bloomberg", "…, пишет
// Bloomberg"), which is news, not a footer.
func attribution(text, sig string) bool {
	before := strings.TrimSpace(strings.TrimSuffix(text, sig))
	return strings.HasSuffix(before, "—") || strings.HasSuffix(before, "пишет") || strings.HasSuffix(before, "отмечает") ||
		strings.HasSuffix(before, "/") || strings.HasSuffix(before, "сообщает")
}

func tail(s string, n int) string {
	rs := []rune(s)
	return string(rs[max(0, len(rs)-n):])
}

// doubledAtJoin returns a capitalized word written twice in a row in s where two items were
// glued — an acronym, or a word after a dash («— Путин Путин назвал») — or "".
func doubledAtJoin(s string) string {
	f := strings.Fields(s)
	for i := 1; i < len(f); i++ {
		w := f[i]
		r, _ := utf8.DecodeRuneInString(w)
		if w != f[i-1] || !unicode.IsUpper(r) {
			continue
		}
		if letters := strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) {
				return r
			}
			return -1
		}, w); strings.ToUpper(letters) == letters && utf8.RuneCountInString(letters) > 1 {
			return w // an acronym, not an abbreviation such as "П. П." (percentage points)
		}
		for k := i - 2; k >= 0 && k >= i-5; k-- {
			if f[k] == "—" || f[k] == "–" {
				return w
			}
		}
	}
	return ""
}

// bulletInside reports whether s holds an emoji after a word and before an upper-case word: two
// items of a post quoted as one sentence.
func bulletInside(s string) bool {
	f := strings.Fields(s)
	for i := 1; i+1 < len(f); i++ {
		r, _ := utf8.DecodeRuneInString(f[i])
		next, _ := utf8.DecodeRuneInString(f[i+1])
		last, _ := utf8.DecodeLastRuneInString(f[i-1])
		if textnorm.IsEmoji(r) && !strings.ContainsFunc(f[i], unicode.IsLetter) && unicode.IsUpper(next) && (unicode.IsLetter(last) || unicode.IsDigit(last)) {
			return true
		}
	}
	return false
}
