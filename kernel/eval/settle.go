package eval

import (
	"context"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/kernel/eval/internal/reach"
)

// yaegi's ExecuteWithContext returns as soon as its context is cancelled, while
// the goroutine running the cell stops at its next check a moment later.
// The next cell must not start before it has stopped (the interpreter's
// frame is not safe for concurrent use), so each Eval labels its goroutines
// and an interrupted Eval waits until no goroutine with its label is still
// inside ExecuteWithContext.

const evalLabel = "conclab_eval"

var evalSeq atomic.Uint64

// labelled runs f with a fresh eval label and returns the label value.
func labelled(ctx context.Context, f func()) string {
	id := strconv.FormatUint(evalSeq.Add(1), 10)
	pprof.Do(ctx, pprof.Labels(evalLabel, id), func(context.Context) { f() })
	return id
}

// settle waits, up to max, until the interpreter goroutine of eval id has
// returned. It reports whether it did.
func settle(id string, max time.Duration) bool {
	deadline := time.Now().Add(max)
	for {
		if !running(id) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func running(id string) bool { return reach.Executing(evalLabel, id) }
