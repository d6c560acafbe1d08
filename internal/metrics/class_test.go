package metrics

import (
	"errors"
	"fmt"
	"testing"

	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/llm"
)

func TestJudgeFailureClass(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"config", fmt.Errorf("chat: %w", llm.ErrConfig), ClassConfig},
		{"rate limited", fmt.Errorf("chat: %w", llm.ErrRateLimited), ClassRateLimited},
		{"server", fmt.Errorf("chat: %w", llm.ErrServer), ClassServer},
		{"bad response", fmt.Errorf("chat: %w", llm.ErrBadResponse), ClassBadResponse},
		{"malformed verdicts", fmt.Errorf("repair: %w", judge.ErrMalformed), ClassMalformed},
		{"anything else", errors.New("boom"), ClassOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := JudgeFailureClass(tt.err); got != tt.want {
				t.Errorf("class = %q, want %q", got, tt.want)
			}
		})
	}
}
