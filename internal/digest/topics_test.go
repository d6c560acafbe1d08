package digest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/querycap"
)

func TestParseTopics(t *testing.T) {
	long := strings.Repeat("долгий запрос ", 10) // 140 runes
	tests := []struct {
		name    string
		in      string
		want    []Topic
		wantErr error
		// msg is a part the error message must hold (the entry and its line); "=" + text:
		// the message is text.
		msg string
	}{
		{
			name: "good",
			in: `# morning digest
topics:
  - name: ECB rates
    query: what did the ECB decide on interest rates
    mode: recency
  - name: Ключевая ставка
    query: как менялась ключевая ставка с 2022 года
    mode: evolution
`,
			want: []Topic{
				{Name: "ECB rates", Query: "what did the ECB decide on interest rates", Mode: "recency"},
				{Name: "Ключевая ставка", Query: "как менялась ключевая ставка с 2022 года", Mode: "evolution"},
			},
		},
		{
			name: "defaults",
			in: "topics:\n  - query: \"  chip export rules  \"\n  - query: " + long + "\n    mode: \" BM25 \"\n" +
				"  - {query: \"multi\\nline   query\", name: \"\"}\n",
			want: []Topic{
				{Name: "chip export rules", Query: "chip export rules", Mode: "auto"},
				{Name: "долгий запрос долгий запрос долгий запрос долгий запрос…", Query: strings.TrimSpace(long), Mode: "bm25"},
				{Name: "multi line query", Query: "multi line   query", Mode: "auto"},
			},
		},
		{
			name: "control characters stripped",
			in:   "topics:\n  - {name: \"Rates\\e[2J\\u009b31m\", query: \"key rate \\e[2J\\e]0;TITLE\\a via\\tfile\\u202e\"}\n  - query: \"\\e[31mred\\e[0m\"\n",
			want: []Topic{
				{Name: "Rates[2J31m", Query: "key rate [2J]0;TITLE via file", Mode: "auto"},
				{Name: "[31mred[0m", Query: "[31mred[0m", Mode: "auto"},
			},
		},
		{
			name: "every mode",
			in: func() string {
				var b strings.Builder
				b.WriteString("topics:\n")
				for _, m := range Modes {
					fmt.Fprintf(&b, "  - {query: q %s, mode: %s}\n", m, m)
				}
				return b.String()
			}(),
			want: func() []Topic {
				var ts []Topic
				for _, m := range Modes {
					ts = append(ts, Topic{Name: "q " + m, Query: "q " + m, Mode: m})
				}
				return ts
			}(),
		},
		{name: "empty file", in: "", wantErr: ErrEmptyFile},
		{name: "blank and comments", in: "\n  \n# nothing yet\n", wantErr: ErrEmptyFile},
		{name: "no topics key", in: "topics:\n", wantErr: ErrNoTopics},
		{name: "empty list", in: "topics: []\n", wantErr: ErrNoTopics},
		{name: "not yaml", in: "topics: [a: b: c\n", wantErr: ErrSyntax},
		{name: "topics not a list", in: "topics: {query: x}\n", wantErr: ErrSyntax, msg: "line 1"},
		{name: "unknown top-level key", in: "title: morning\ntopics:\n  - query: x\n", wantErr: ErrSyntax, msg: "=line 1: unknown key `title`"},
		{name: "unknown topic key", in: "topics:\n  - query: x\n  - query: y\n    k: 5\n", wantErr: ErrSyntax, msg: "line 4: unknown key `k`"},
		{name: "a key mistyped", in: "topics:\n  - name: Rate\n    qeury: key rate\n", wantErr: ErrSyntax, msg: "=line 3: unknown key `qeury` (did you mean `query`?)"},
		{name: "title for name", in: "topics:\n  - title: Rate\n    query: key rate\n", wantErr: ErrSyntax, msg: "=line 2: unknown key `title` (did you mean `name`?)"},
		{name: "a key indented one space short", in: "topics:\n  - name: Rate\n   query: key rate\n", wantErr: ErrSyntax,
			msg: "line 3: `query:` is indented 3 spaces, but the entry that starts on line 2 has its keys at 4"},
		{name: "two documents", in: "topics:\n  - query: x\n---\ntopics:\n  - query: y\n", wantErr: ErrSyntax, msg: "more than one"},
		{name: "empty query", in: "topics:\n  - query: x\n  - name: blank\n    query: \"   \"\n", wantErr: ErrEmptyQuery, msg: "entry 2 (line 3)"},
		{name: "missing query", in: "topics:\n  - query: x\n  - query: y\n  - name: z\n", wantErr: ErrEmptyQuery, msg: "entry 3 (line 4)"},
		{name: "null entry", in: "topics:\n  - ~\n", wantErr: ErrEmptyQuery, msg: "entry 1 (line 2)"},
		{name: "query over the cap", in: "topics:\n  - query: x\n  - query: " + strings.Repeat("y", querycap.MaxBytes+1) + "\n", wantErr: querycap.ErrTooLong,
			msg: "entry 2 (line 3): its query is 4097 bytes"},
		{name: "null entry keeps numbering", in: "topics:\n  - query: a\n  -\n  - query: c\n", wantErr: ErrEmptyQuery, msg: "entry 2 (line 3)"},
		{name: "duplicate name", in: "topics:\n  - {name: ECB, query: a}\n  - {name: b, query: b}\n  - {name: \" ecb \", query: c}\n",
			wantErr: ErrDuplicateName, msg: `entry 3 (line 4): duplicate topic name "ecb" (also entry 1 (line 2))`},
		{name: "duplicate default name", in: "topics:\n  - query: Rates\n  - name: rates\n    query: other\n",
			wantErr: ErrDuplicateName, msg: "entry 2 (line 3)"},
		{name: "duplicate Cyrillic name", in: "topics:\n  - {name: Ставка, query: a}\n  - {name: СТАВКА, query: b}\n",
			wantErr: ErrDuplicateName, msg: "entry 2 (line 3)"},
		{name: "unknown mode", in: "topics:\n  - query: x\n    mode: freshest\n", wantErr: ErrUnknownMode, msg: `entry 1 (line 2): unknown mode "freshest"`},
		{name: "too many", in: "topics:\n" + strings.Repeat("  - query: x\n", MaxTopics+1), wantErr: ErrTooManyTopics, msg: "51, at most 50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTopics(strings.NewReader(tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ParseTopics error = %v, want %v", err, tt.wantErr)
				}
				if whole, ok := strings.CutPrefix(tt.msg, "="); ok && err.Error() != whole {
					t.Errorf("error %q, want %q", err, whole)
				}
				if !strings.Contains(err.Error(), strings.TrimPrefix(tt.msg, "=")) {
					t.Errorf("error %q does not say %q", err, tt.msg)
				}
				if got != nil {
					t.Errorf("ParseTopics returned %v with an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTopics: %v", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ParseTopics =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestParseTopicsLimit(t *testing.T) {
	ok := "topics:\n" + strings.Repeat("  - query: x\n", 1) // one topic at MaxTopics boundary below
	for i := 2; i <= MaxTopics; i++ {
		ok += fmt.Sprintf("  - query: x%d\n", i)
	}
	got, err := ParseTopics(strings.NewReader(ok))
	if err != nil || len(got) != MaxTopics {
		t.Fatalf("ParseTopics of %d topics = %d topics, %v", MaxTopics, len(got), err)
	}
	huge := "topics:\n  - query: \"" + strings.Repeat("x", maxTopicsFileBytes) + "\"\n"
	if _, err := ParseTopics(strings.NewReader(huge)); !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("ParseTopics of a %d-byte file = %v, want a size error", len(huge), err)
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errRead }

var errRead = errors.New("disk gone")

func TestParseTopicsReadError(t *testing.T) {
	if _, err := ParseTopics(failReader{}); !errors.Is(err, errRead) {
		t.Errorf("ParseTopics of a failing reader = %v, want %v", err, errRead)
	}
}

// FuzzParseTopics checks that ParseTopics never panics and that what it accepts is valid:
// 1..MaxTopics topics, each with a trimmed query, a name unique but for case and a known mode.
func FuzzParseTopics(f *testing.F) {
	f.Add("topics:\n  - name: a\n    query: b\n    mode: window\n")
	f.Add("topics: [{query: x}, {query: X}]\n")
	f.Add("topics:\n  - query: \"\"\n")
	f.Add("topics: [~, 1, [2]]\n")
	f.Add("a: &a [*a]\n")
	f.Fuzz(func(t *testing.T, in string) {
		topics, err := ParseTopics(strings.NewReader(in))
		if err != nil {
			return
		}
		if len(topics) == 0 || len(topics) > MaxTopics {
			t.Fatalf("accepted %d topics", len(topics))
		}
		names := map[string]bool{}
		for _, tp := range topics {
			if tp.Query == "" || tp.Query != strings.TrimSpace(tp.Query) || tp.Name == "" {
				t.Fatalf("accepted topic %+v", tp)
			}
			if !slices.Contains(Modes, tp.Mode) {
				t.Fatalf("accepted mode %q", tp.Mode)
			}
			if names[strings.ToLower(tp.Name)] {
				t.Fatalf("accepted duplicate name %q", tp.Name)
			}
			names[strings.ToLower(tp.Name)] = true
		}
	})
}
