package pymodel

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// KindFuncs implement a step kind registered by another package (the lab's
// workloads, e.g. image processing). Registered kinds are portable: the
// registering package is linked into the worker processes too, so a step of
// the kind can run in a process pool or a prefork worker.
type KindFuncs struct {
	// IO marks the kind as an I/O wait (releases the GIL, can be awaited);
	// otherwise it is CPU work, holding the GIL unless Step.ReleasesGIL.
	IO bool
	// Run does the work. payload is the bytes a process pool sent (nil when
	// running in the requesting process); the result is sent back.
	Run func(ctx context.Context, s Step, payload []byte) ([]byte, error)
	// Payload, if not nil, returns the bytes to send to a process-pool
	// worker for s (the pickled arguments).
	Payload func(ctx context.Context, s Step) ([]byte, error)
	// Parse, if not nil, makes a step of the kind from the VALUE of a
	// workload spec item KIND=VALUE.
	Parse func(value string) (Step, error)
}

var (
	kindsMu sync.RWMutex
	kinds   = map[string]KindFuncs{}
)

// RegisterKind adds a step kind; call it from an init function. It panics on
// a duplicate or built-in name, or a nil Run (programming errors).
func RegisterKind(name string, k KindFuncs) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	switch name {
	case "", KindSleep, KindCPU, KindBurn, KindCustom:
		panic("pymodel: cannot register step kind " + name)
	}
	if _, dup := kinds[name]; dup || k.Run == nil {
		panic("pymodel: duplicate or empty step kind " + name)
	}
	kinds[name] = k
}

func registered(name string) (KindFuncs, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	k, ok := kinds[name]
	return k, ok
}

// Kinds lists every step kind, built-in and registered.
func Kinds() []string {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
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
	out, err := k.Run(ctx, s, payload)
	if err != nil {
		return nil, fmt.Errorf("step %s: %w", s.Label(), err)
	}
	return out, nil
}
