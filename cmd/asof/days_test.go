package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseDay(t *testing.T) {
	tests := []struct {
		name, flag, in string
		want           time.Time
		err            string
	}{
		{name: "a day", flag: "as-of", in: "2023-03-03", want: time.Date(2023, 3, 3, 0, 0, 0, 0, time.UTC)},
		{name: "slashes", flag: "from", in: "2023/03/03", want: time.Date(2023, 3, 3, 0, 0, 0, 0, time.UTC)},
		{name: "RFC 3339 east of UTC", flag: "to", in: "2023-03-03T01:00:00+03:00", want: time.Date(2023, 3, 2, 22, 0, 0, 0, time.UTC)},
		{name: "first accepted", flag: "as-of", in: "1000-01-01", want: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{name: "Go's zero time", flag: "as-of", in: "0001-01-01", err: `--as-of "0001-01-01" is out of range: give a day from 1000-01-01 to 9999-12-31`},
		{name: "year 0", flag: "as-of", in: "0000-01-01", err: `--as-of "0000-01-01" is out of range`},
		{name: "year 999", flag: "from", in: "0999-12-31", err: `--from "0999-12-31" is out of range`},
		{name: "five-digit year", flag: "to", in: "10000-01-01", err: `--to "10000-01-01" is not a date: give a day from 1000-01-01 to 9999-12-31`},
		{name: "words", flag: "as-of", in: "yesterday", err: `--as-of "yesterday" is not a date`},
		{name: "no such day", flag: "as-of", in: "2023-02-30", err: `--as-of "2023-02-30" is not a date`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDay(tt.flag, tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseDay(%q) = %s, %v; want error %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) {
				t.Fatalf("parseDay(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestJoinQuery: an unquoted query's words are joined, with a note; one argument is kept as
// typed, silently.
func TestJoinQuery(t *testing.T) {
	var note strings.Builder
	if got := joinQuery(&note, []string{"what", "is", "new"}); got != "what is new" || !strings.Contains(note.String(), `asking "what is new" (3 words joined`) {
		t.Errorf("joined %q, note %q", got, note.String())
	}
	note.Reset()
	if got := joinQuery(&note, []string{"what  is new"}); got != "what  is new" || note.Len() != 0 {
		t.Errorf("one argument: %q, note %q", got, note.String())
	}
}
