package pymodel

import (
	"context"
	"fmt"
	"sort"
)

// kindFuncs implement a step kind beyond the model's own (sleep, cpu,
// burn, custom). Such kinds are portable: this package runs in the worker
// processes too, so a step of the kind can run in a process pool or a
// prefork worker.
type kindFuncs struct {
	// io marks the kind as an I/O wait (releases the GIL, can be awaited);
	// otherwise it is CPU work, holding the GIL unless Step.ReleasesGIL
	// (a partly held share, Step.GILReleased, needs a burn or cpu step).
	io bool
	// run does the work. payload is the bytes a process pool sent (nil when
	// running in the requesting process); the result is sent back.
	run func(ctx context.Context, s Step, payload []byte) ([]byte, error)
	// payload, if not nil, returns the bytes to send to a process-pool
	// worker for s (the pickled arguments).
	payload func(ctx context.Context, s Step) ([]byte, error)
	// parse, if not nil, makes a step of the kind from the VALUE of a
	// workload spec item KIND=VALUE.
	parse func(value string) (Step, error)
}

// kinds is the table of the lab's step kinds beyond the model's own. It is
// a plain table, not a registry filled at init: every kind a worker process
// may be sent is named here, next to its builder (image.go).
var kinds = map[string]kindFuncs{
	KindImage: {run: runImage, payload: imagePoolPayload, parse: parseImage},
}

func registered(name string) (kindFuncs, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Kinds lists every step kind: the model's own, then the table's, sorted.
func Kinds() []string {
	out := []string{KindSleep, KindCPU, KindBurn, KindCustom}
	var extra []string
	for k := range kinds {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	return append(out, extra...)
}

type uploadKey struct{}

// WithUpload returns a context carrying the request's uploaded bytes, which
// steps such as image processing use as their input.
func WithUpload(ctx context.Context, data []byte) context.Context {
	return context.WithValue(ctx, uploadKey{}, data)
}

// Upload returns the bytes WithUpload attached, or nil.
func Upload(ctx context.Context) []byte {
	b, _ := ctx.Value(uploadKey{}).([]byte)
	return b
}

func runRegistered(ctx context.Context, s Step, payload []byte) ([]byte, error) {
	k, ok := registered(s.Kind)
	if !ok {
		return nil, fmt.Errorf("pymodel: unknown step kind %q", s.Kind)
	}
	out, err := k.run(ctx, s, payload)
	if err != nil {
		return nil, fmt.Errorf("step %s: %w", s.Label(), err)
	}
	return out, nil
}
