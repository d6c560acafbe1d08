package textnorm

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"spaces", "  a \t b  ", "a b"},
		{"paragraphs", "a\n\n\n\nb\r\nc", "a\n\nb\nc"},
		{"nfc", "e\u0301", "\u00e9"},
		{"controls and bom", "\uFEFFa\u0000b\u200Bc", "abc"},
		{"only whitespace", " \n\t ", ""},
		{"line trailing space", "a  \n  b", "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Fatalf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLang(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The Bank of Russia raised the key rate", "en"},
		{"Банк России повысил ключевую ставку до 16%", "ru"},
		{"ЦБ: ставка 16% (key rate, Reuters)", "ru"},
		{"12345 !!!", ""},
	}
	for _, tt := range tests {
		if got := Lang(tt.in); got != tt.want {
			t.Errorf("Lang(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Don't panic: COVID-19 cases rose 5%.", "don't panic covid-19 cases rose 5"},
		{"Ёлка — ёж, ЕЖ", "елка еж еж"},
		{"it’s -dash- trailing-", "it's dash trailing"},
		{"", ""},
	}
	for _, tt := range tests {
		got := strings.Join(Tokens(tt.in), " ")
		if got != tt.want {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDedupKey(t *testing.T) {
	base := "Банк России повысил ключевую ставку до 16% https://t.me/c/1 @finnews"
	same := []string{
		"банк россии   повысил ключевую ставку до 16%!",
		"Банк России повысил ключевую ставку до 16% (@other_channel) www.example.com/x",
	}
	for _, s := range same {
		if DedupKey(s) != DedupKey(base) {
			t.Errorf("repost %q has another key", s)
		}
	}
	if DedupKey("Банк России повысил ключевую ставку до 17%") == DedupKey(base) {
		t.Fatal("a different number must give a different key")
	}
	if len(DedupKey("x")) != 32 {
		t.Fatal("key is 16 bytes of hex")
	}
}

func TestValidUTF8(t *testing.T) {
	if !ValidUTF8("ставка") || ValidUTF8("bad \xff\xfe bytes") {
		t.Fatal("ValidUTF8 wrong")
	}
}

func FuzzTokensClean(f *testing.F) {
	f.Add("Don't panic: COVID-19 ставка ёж https://x.y @h")
	f.Fuzz(func(t *testing.T, s string) {
		c := Clean(s)
		if Clean(c) != c {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
		for _, tok := range Tokens(s) {
			if tok == "" || strings.ContainsAny(tok, " \t\n") {
				t.Fatalf("bad token %q from %q", tok, s)
			}
		}
	})
}
