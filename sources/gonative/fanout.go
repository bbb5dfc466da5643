package gonative

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/workload"
)

// Call calls a downstream URL once (GET; a status other than 200 is an
// error) and returns how long it took.
func Call(ctx context.Context, url string) (time.Duration, error) {
	return workload.CallDownstream(ctx, nil, url)
}

// FirstError is the fan-out pattern the lesson writes: call every URL at
// once and return the first error (nil when all succeed), ending the calls
// still running — errgroup.WithContext's.
type FirstError func(ctx context.Context, urls []string) error

// FanOut is source 002's fan-out the Go way, against a loopback downstream
// that answers after Wait: N calls all at once (a goroutine each), through
// a pool of Limit goroutines, one after another, and with firstError (when
// not nil) on N calls of which the last fails at once while the others
// would wait 20 × Wait. One row each (strategy: "all", "pool L",
// "sequential", "first error"): workers, count, errors, elapsed_s, waits
// (elapsed over Wait).
func (k Knobs) FanOut(ctx context.Context, firstError FirstError) (*frame.Frame, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	down, err := workload.StartDownstream(ctx, k.Wait)
	if err != nil {
		return nil, err
	}
	defer down.Close()
	url := down.HealthURL()
	f := frame.Of(fmt.Sprintf("go fan-out: %d calls of %v", k.N, k.Wait), "strategy", "workers", "count", "errors", "elapsed_s", "waits")
	for _, m := range []workload.FanOut{
		{Mode: workload.FanAll}, {Mode: workload.FanPool, Workers: k.Limit}, {Mode: workload.FanSequential},
	} {
		m.URL, m.Calls = url, k.N
		res, err := m.Run(ctx)
		if err != nil {
			return nil, err
		}
		name := m.Mode
		if m.Mode == workload.FanPool {
			name = fmt.Sprintf("pool %d", res.Workers)
		}
		s := res.Summary()
		f.MustAppend(frame.Row{"strategy": name, "workers": res.Workers, "count": s.Float("count", 0), "errors": s.Float("errors", 0),
			"elapsed_s": res.Elapsed.Seconds(), "waits": res.Elapsed.Seconds() / k.Wait.Seconds()})
	}
	if firstError == nil {
		return f, nil
	}
	slow := fmt.Sprintf("%s?ms=%d", url, (20 * k.Wait).Milliseconds())
	urls := append(strings.Fields(strings.Repeat(slow+" ", k.N-1)), url+"?ms=fail")
	start := time.Now()
	err = firstError(ctx, urls)
	el := time.Since(start)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	errs := 0
	if err != nil {
		errs = 1
	}
	f.MustAppend(frame.Row{"strategy": "first error", "workers": k.N, "count": k.N, "errors": errs, "elapsed_s": el.Seconds(), "waits": el.Seconds() / k.Wait.Seconds()})
	if err == nil {
		return f, errors.New("gonative: FanOut: firstError returned nil although one call failed")
	}
	return f, nil
}
