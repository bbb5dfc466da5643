package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

// Sleep is an I/O wait of d (time.sleep, or asyncio.sleep when awaited).
func Sleep(d time.Duration) pymodel.Step { return pymodel.Sleep(d) }

// CPU is the sum of squares of 0..n-1, computed for real, holding the GIL.
func CPU(n int) pymodel.Step { return pymodel.CPU(n) }

// Burn burns d of CPU time holding the GIL; BurnNoGIL releases it.
func Burn(d time.Duration) pymodel.Step { return pymodel.Burn(d) }

// BurnNoGIL burns d of CPU time without the GIL, as C extension code does.
func BurnNoGIL(d time.Duration) pymodel.Step { return pymodel.BurnNoGIL(d) }

// Func wraps a Go function written in a cell as a step. io says whether it
// is an I/O wait (releases the GIL, may be awaited) or CPU work (holds the
// GIL while it runs). It runs in this process only.
func Func(name string, io bool, fn func(ctx context.Context) error) pymodel.Step {
	return pymodel.Custom(name, io, fn)
}

// Steps makes a workload of the steps, in order.
func Steps(steps ...pymodel.Step) pymodel.Workload { return pymodel.Workload{Steps: steps} }

// Workload parses a workload spec such as "sleep=1s" or
// "cpu=10000000,sleep=100ms:await" (see pymodel.ParseWorkload).
func Workload(spec string) (pymodel.Workload, error) { return pymodel.ParseWorkload(spec) }

// Preset returns a strategy preset by its row name ("sync", "asyncio",
// "/async-block", "flask 1w x 5t", "goroutines", ...).
func Preset(name string) (strategy.Strategy, error) { return strategy.Preset(name) }

// Presets returns the named presets, or an error naming an unknown one
// and listing the known ones.
func Presets(names ...string) ([]strategy.Strategy, error) {
	out := make([]strategy.Strategy, 0, len(names))
	for _, n := range names {
		s, err := strategy.Preset(n)
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// PresetNames lists every preset name.
func PresetNames() []string { return strategy.PresetNames() }

// Serve starts one strategy server with the workload on 127.0.0.1:0 and
// returns it running, for a cell that drives it with its own client. The
// caller must call Close (cancelling ctx also closes it).
func Serve(ctx context.Context, s strategy.Strategy, w pymodel.Workload) (strategy.Server, error) {
	if s == nil {
		return nil, fmt.Errorf("bench: Serve: nil strategy")
	}
	srv, err := s.Start(ctx, w, strategy.StartOptions{})
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return srv, nil
}
