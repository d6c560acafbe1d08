package workflows

import "go.temporal.io/sdk/workflow"

// fanOutVersion is the change ID of the bounded fan-out: runs of IndexBuild, Eval and Digest
// started before it replay their hand-written limiters (selector windows and in-order waits).
const fanOutVersion = "bounded-fan-out"

// fanOut runs job(ctx, i) for i in [0, n), each in its own workflow.Go coroutine, at most
// limit at once (a workflow.NewSemaphore; limit < 1 means 1). Jobs start in input order; after
// the first error no new job starts, the running ones finish, and that error (the first to
// happen) is returned. The results are in input order; a failed or unstarted job leaves the
// zero value in its place.
func fanOut[T any](ctx workflow.Context, n, limit int, job func(ctx workflow.Context, i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	sem := workflow.NewSemaphore(ctx, int64(max(1, limit)))
	wg := workflow.NewWaitGroup(ctx)
	var firstErr error
	for i := range n {
		if err := sem.Acquire(ctx, 1); err != nil { // the workflow was cancelled
			if firstErr == nil {
				firstErr = err
			}
			break
		}
		if firstErr != nil {
			sem.Release(1)
			break
		}
		wg.Add(1)
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer wg.Done()
			defer sem.Release(1)
			v, err := job(ctx, i)
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			out[i] = v
		})
	}
	wg.Wait(ctx)
	return out, firstErr
}
