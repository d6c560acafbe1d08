package lexical

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
)

// TestZHAnalyzer: Chinese text is cut into words, Latin words lower-cased and full-width forms
// folded, punctuation and spaces dropped; every token's offsets point at its text in the input.
func TestZHAnalyzer(t *testing.T) {
	as, err := analyzers()
	if err != nil {
		t.Fatal(err)
	}
	a := as[fieldZH]
	for _, tc := range []struct{ in, want string }{
		{"2020年3月15日湖北潜江市发生了什么事件？", "2020 年 3 月 15 日 湖北 潜江市 发生 了 什么 事件"},
		{"COTODAMA歌词音箱和苹果停产iPhone 6系列", "cotodama 歌词 音箱 和 苹果 停产 iphone 6 系列"},
		{"央行宣布加息，利率上升", "央行 宣布 加息 利率 上升"},
		{"ＧＤＰ增长", "gdp 增长"},
	} {
		toks := a.Analyze([]byte(tc.in))
		var got []string
		for _, tok := range toks {
			got = append(got, string(tok.Term))
			src := tc.in[tok.Start:tok.End]
			if !strings.EqualFold(src, string(tok.Term)) && tok.Type != analysis.AlphaNumeric {
				t.Errorf("%q: token %q at %d..%d is %q in the input", tc.in, tok.Term, tok.Start, tok.End, src)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, strings.Join(got, " "), tc.want)
		}
	}
}
