package textnorm

import (
	"slices"
	"testing"
)

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"The latest key rates", []string{"key", "rat"}},                    // stop-words and time cues go; plural meets singular
		{"rate-setting meeting", []string{"meet", "rat", "rate-s", "sett"}}, // a hyphenated word counts as its parts too
		{"Ключевая ставка и ставки сейчас", []string{"ключ", "ставк"}},      // Russian inflections meet
		{"COVID-19 in 2024", []string{"19", "2024", "covid", "covid-19"}},   // numbers stay whole
		{"", nil},
	} {
		if got := Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	a, b := Terms("key rate raised"), Terms("the key rate was raised again")
	if Overlap(a, b) != 3 || Jaccard(a, b) != 0.75 {
		t.Errorf("overlap %d jaccard %v", Overlap(a, b), Jaccard(a, b))
	}
	if Jaccard(nil, nil) != 1 || !IsStopWord("сейчас") || IsStopWord("rate") {
		t.Error("edge cases")
	}
}
