package strategy

import (
	"context"
	"fmt"

	"github.com/conclab/conclab/bench/pymodel"
)

// Goroutines is Go's net/http: a goroutine per request, no GIL, no limit.
type Goroutines struct {
	Name string // row label; "" means "goroutines"
}

// Bounded is goroutines bounded by a semaphore of Limit: at most Limit
// requests run their steps at once, the rest wait.
type Bounded struct {
	Name  string // row label; "" means "bounded N"
	Limit int    // requests at once; must be positive
}

// Serial handles one request at a time.
type Serial struct {
	Name string // row label; "" means "serial"
}

var (
	_ Strategy = Goroutines{}
	_ Strategy = Bounded{}
	_ Strategy = Serial{}
)

// Label is Name, or "goroutines".
func (g Goroutines) Label() string { return orDefault(g.Name, "goroutines") }

// Validate accepts every Goroutines.
func (g Goroutines) Validate() error { return nil }

// Start starts the server for w. The caller must Close it; cancelling ctx
// closes it too.
func (g Goroutines) Start(ctx context.Context, w pymodel.Workload, o StartOptions) (Server, error) {
	return startSpec(ctx, g.spec(), w, o)
}

// String describes the strategy in one line.
func (g Goroutines) String() string { return g.Label() + ": goroutines" }

func (g Goroutines) spec() spec { return spec{Name: g.Label(), Kind: kindGoroutines} }

// Label is Name, or "bounded N".
func (b Bounded) Label() string { return orDefault(b.Name, fmt.Sprintf("bounded %d", b.Limit)) }

// Validate reports a Limit that is not positive.
func (b Bounded) Validate() error {
	if b.Limit <= 0 {
		return fmt.Errorf("strategy %q: bounded needs a positive Limit, got %d", b.Label(), b.Limit)
	}
	return nil
}

// Start starts the server for w. The caller must Close it; cancelling ctx
// closes it too.
func (b Bounded) Start(ctx context.Context, w pymodel.Workload, o StartOptions) (Server, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	return startSpec(ctx, b.spec(), w, o)
}

// String describes the strategy in one line.
func (b Bounded) String() string { return fmt.Sprintf("%s: bounded %d", b.Label(), b.Limit) }

func (b Bounded) spec() spec { return spec{Name: b.Label(), Kind: kindBounded, Limit: b.Limit} }

// Label is Name, or "serial".
func (s Serial) Label() string { return orDefault(s.Name, "serial") }

// Validate accepts every Serial.
func (s Serial) Validate() error { return nil }

// Start starts the server for w. The caller must Close it; cancelling ctx
// closes it too.
func (s Serial) Start(ctx context.Context, w pymodel.Workload, o StartOptions) (Server, error) {
	return startSpec(ctx, s.spec(), w, o)
}

// String describes the strategy in one line.
func (s Serial) String() string { return s.Label() + ": serial" }

func (s Serial) spec() spec { return spec{Name: s.Label(), Kind: kindSerial, Limit: 1} }

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
