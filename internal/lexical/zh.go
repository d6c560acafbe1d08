package lexical

import (
	"strings"
	"sync"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/go-ego/gse"
)

// Chinese words. Chinese has no spaces, and bleve's CJK analyzer indexes every pair of
// adjacent characters. The zh analyzer cuts Chinese text into words with gse (a pure-Go
// segmenter with jieba's dictionary of simplified Chinese, embedded in the binary, and an HMM
// for words it does not list), folds full-width forms and lower-cases. Chinese chunks are
// indexed in text_zh with it beside their bigrams in text_cjk: on chronoqa-dev BM25 with both
// scored 0.897 nDCG@10, as BM25 over jieba's words does, against 0.888 with the bigrams alone
// and 0.854 with the words alone (docs/lexical.md). Japanese and Korean keep the bigrams only.
const (
	zhTokenizerName = "asof_zh_words"
	zhAnalyzerName  = "asof_zh"
)

// zhSegmenter loads gse's dictionary once per process, on first use (about a second and
// 200 MB): only processes that index or search Chinese text pay for it.
var zhSegmenter = sync.OnceValues(func() (*gse.Segmenter, error) {
	var s gse.Segmenter
	if err := s.LoadDictEmbed("zh_s"); err != nil {
		return nil, err
	}
	return &s, nil
})

// zhTokenizer cuts text into gse's words (HMM on), keeping those with a letter or a digit.
type zhTokenizer struct{}

func (zhTokenizer) Tokenize(input []byte) analysis.TokenStream {
	text := string(input)
	var words []string
	if seg, err := zhSegmenter(); err == nil {
		words = seg.Cut(text, true)
	} else { // the embedded dictionary did not load (a broken build): one character a word
		for _, r := range text {
			words = append(words, string(r))
		}
	}
	var out analysis.TokenStream
	off, pos := 0, 0
	for _, w := range words {
		start := off
		switch {
		case strings.HasPrefix(text[off:], w):
		case len(text)-off >= len(w) && strings.EqualFold(text[off:off+len(w)], w): // gse lower-cases Latin
		default:
			if i := strings.Index(text[off:], w); i >= 0 {
				start = off + i
			}
		}
		end := min(start+len(w), len(text))
		off = end
		if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		pos++
		typ := analysis.AlphaNumeric
		if strings.ContainsFunc(w, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			typ = analysis.Ideographic
		}
		out = append(out, &analysis.Token{Term: []byte(w), Start: start, End: end, Position: pos, Type: typ})
	}
	return out
}

func init() {
	registry.RegisterTokenizer(zhTokenizerName, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return zhTokenizer{}, nil
	})
	registry.RegisterAnalyzer(zhAnalyzerName, func(_ map[string]interface{}, cache *registry.Cache) (analysis.Analyzer, error) {
		tok, err := cache.TokenizerNamed(zhTokenizerName)
		if err != nil {
			return nil, err
		}
		width, err := cache.TokenFilterNamed(cjk.WidthName)
		if err != nil {
			return nil, err
		}
		lower, err := cache.TokenFilterNamed(lowercase.Name)
		if err != nil {
			return nil, err
		}
		return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: []analysis.TokenFilter{width, lower}}, nil
	})
}
