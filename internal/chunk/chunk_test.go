package chunk

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	o := Options{Size: 20, Overlap: 5, Min: 4}
	tests := []struct {
		name      string
		in        string
		opts      Options
		want      []string
		truncated bool
	}{
		{"empty", "", o, nil, false},
		{"short message is one piece", "Ставка 16%.", o, []string{"Ставка 16%."}, false},
		{"exactly size", strings.Repeat("a", 20), o, []string{strings.Repeat("a", 20)}, false},
		{"paragraph boundary wins", "First para here.\n\nSecond one is here.", o, []string{"First para here.\n\n", "Second one is here."}, false},
		{"overlap starts on a word", "alpha beta gamma delta epsilon zeta", Options{Size: 20, Overlap: 8, Min: 4}, []string{"alpha beta gamma ", "gamma delta epsilon ", "epsilon zeta"}, false},
		{"hard cut without spaces", strings.Repeat("x", 45), o, []string{strings.Repeat("x", 20), strings.Repeat("x", 20), strings.Repeat("x", 5)}, false},
		{"short tail merges", strings.Repeat("y", 22), o, []string{strings.Repeat("y", 22)}, false},
		{"cap", strings.Repeat("word ", 30), Options{Size: 20, Overlap: 0, Min: 4, MaxPieces: 2}, []string{"word word word word ", "word word word word "}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, trunc := Split(tt.in, tt.opts)
			var texts []string
			for _, p := range got {
				texts = append(texts, p.Text)
			}
			if strings.Join(texts, "|") != strings.Join(tt.want, "|") || trunc != tt.truncated {
				t.Fatalf("Split = %q (truncated %v)\nwant   %q (truncated %v)", texts, trunc, tt.want, tt.truncated)
			}
		})
	}
}

// TestSplitProperties checks the invariants on random text: pieces are in order, cover every
// rune, overlap by at most Overlap, respect Size (+Min for the last), and match their offsets.
func TestSplitProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	words := []string{"ставка", "rate", "the", "Банк", "inflation,", "grew.", "\n", "\n\n", "2024", "ЦБ!", "a"}
	for iter := range 500 {
		var b strings.Builder
		for range rng.IntN(400) {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(5) > 0 {
				b.WriteByte(' ')
			}
		}
		text := b.String()
		o := Options{Size: 10 + rng.IntN(200), Min: rng.IntN(10)}
		o.Overlap = rng.IntN(o.Size / 2)
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		pieces, _ := Split(text, o)
		r := []rune(text)
		covered := 0
		for i, p := range pieces {
			if p.Text != string(r[p.Start:p.End]) {
				t.Fatalf("iter %d piece %d: text does not match offsets", iter, i)
			}
			if p.Start > covered {
				t.Fatalf("iter %d: gap before piece %d (%d > %d)", iter, i, p.Start, covered)
			}
			if i > 0 && (p.Start <= pieces[i-1].Start || covered-p.Start > o.Overlap) {
				t.Fatalf("iter %d piece %d: start %d, previous end %d, overlap %d", iter, i, p.Start, covered, o.Overlap)
			}
			limit := o.Size
			if i == len(pieces)-1 {
				limit += o.Min
			}
			if utf8.RuneCountInString(p.Text) > limit {
				t.Fatalf("iter %d piece %d: %d runes > %d", iter, i, utf8.RuneCountInString(p.Text), limit)
			}
			covered = p.End
		}
		if covered != len(r) {
			t.Fatalf("iter %d: pieces cover %d of %d runes", iter, covered, len(r))
		}
	}
}

func TestValidate(t *testing.T) {
	if err := DefaultOptions().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Size: 0}, {Size: 10, Overlap: 10}, {Size: 10, Min: 11}, {Size: 10, MaxPieces: -1}} {
		if o.Validate() == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func BenchmarkSplit(b *testing.B) {
	text := strings.Repeat("The Bank of Russia raised the key rate to 16%. Инфляция замедлилась.\n", 200)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Split(text, DefaultOptions())
	}
}
