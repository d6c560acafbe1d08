package querycap_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/querycap"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		wantErr string
	}{
		{name: "short", query: "key rate"},
		{name: "at the limit", query: strings.Repeat("a", querycap.MaxBytes)},
		{name: "one byte over", query: strings.Repeat("a", querycap.MaxBytes+1), wantErr: "topic 2 (Rates) is 4097 bytes; asof takes queries of at most 4096 bytes"},
		{name: "Cyrillic counts bytes", query: strings.Repeat("я", querycap.MaxBytes/2+1), wantErr: "topic 2 (Rates) is 4098 bytes"},
		{name: "a megabyte", query: strings.Repeat("x", 1<<20), wantErr: "is 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := querycap.Check("topic 2 (Rates)", tt.query)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !errors.Is(err, querycap.ErrTooLong) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err %v, want ErrTooLong with %q", err, tt.wantErr)
			}
		})
	}
}
