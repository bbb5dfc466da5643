// Package conclab_runtime holds the generic members of runtime, for the
// interpreter.
package conclab_runtime

import (
	"runtime"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

// AddCleanup attaches a cleanup function to ptr: some time after ptr is no
// longer reachable, cleanup(arg) runs on a goroutine of its own.
func AddCleanup[T, S any](ptr *T, cleanup func(S), arg S) runtime.Cleanup {
	return rt.AddCleanup(ptr, func(a any) {
		s, _ := a.(S)
		cleanup(s)
	}, arg)
}
