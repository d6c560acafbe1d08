package metrics

import (
	"errors"

	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/llm"
)

// JudgeFailureClass names the class of a failed LLM judge call (the class label of
// asof_judge_failures_total).
func JudgeFailureClass(err error) string {
	switch {
	case errors.Is(err, llm.ErrConfig):
		return ClassConfig
	case errors.Is(err, llm.ErrRateLimited):
		return ClassRateLimited
	case errors.Is(err, llm.ErrServer):
		return ClassServer
	case errors.Is(err, llm.ErrBadResponse):
		return ClassBadResponse
	case errors.Is(err, judge.ErrMalformed):
		return ClassMalformed
	}
	return ClassOther
}
