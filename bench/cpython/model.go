package cpython

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
)

// ModelBurst runs n requests at once through the model — workers
// pymodel runtimes built from cfg (gunicorn-style prefork; request i goes to
// worker i mod workers, 0 means 1) handling h — and returns a one-row
// summary frame like Burst's: elapsed_s is the batch, latencies are
// per request, and gil_wait_ms, loop_blocked_ms, queue_wait_ms come from the
// runtimes. It drives the runtime in process (no HTTP), so it shows the
// model's concurrency without a network stack. A cfg.Trace recorder
// records every runtime's trace (worker i+1 for several).
func ModelBurst(ctx context.Context, strategy string, cfg pymodel.Config, workers int, h pymodel.Handler, n int) (*frame.Frame, error) {
	if n <= 0 || n > MaxBurst {
		return nil, fmt.Errorf("cpython: ModelBurst: n must be in 1..%d, got %d", MaxBurst, n)
	}
	rts, err := startRuntimes(ctx, cfg, workers)
	if err != nil {
		return nil, err
	}
	defer closeRuntimes(rts)
	shots := make([]shot, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range shots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			_, err := rts[i%len(rts)].Handle(ctx, h)
			shots[i] = shot{latency: time.Since(t0), err: err}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cpython: ModelBurst: %w", err)
	}
	return modelFrame(loadFrame("model burst", strategy, "model", load.Burst{N: n}.String(), shots, elapsed), rts), nil
}

// ModelClosedVUs is ClosedVUs against the model: vus goroutines each handle
// h, sleep think and repeat until duration has passed; a think that would
// outlast the end stops there, as ClosedVUs's does.
func ModelClosedVUs(ctx context.Context, strategy string, cfg pymodel.Config, workers int, h pymodel.Handler, vus int, duration, think time.Duration) (*frame.Frame, error) {
	if vus <= 0 || vus > MaxVUs {
		return nil, fmt.Errorf("cpython: ModelClosedVUs: vus must be in 1..%d, got %d", MaxVUs, vus)
	}
	if duration <= 0 || duration > time.Hour || think < 0 {
		return nil, fmt.Errorf("cpython: ModelClosedVUs: duration must be in (0, 1h] and think not negative, got %v and %v", duration, think)
	}
	rts, err := startRuntimes(ctx, cfg, workers)
	if err != nil {
		return nil, err
	}
	defer closeRuntimes(rts)
	var mu sync.Mutex
	var shots []shot
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(duration)
	next := 0
	for v := 0; v < vus; v++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) && ctx.Err() == nil {
				mu.Lock()
				rt := rts[next%len(rts)]
				next++
				full := len(shots) >= MaxRequests
				mu.Unlock()
				if full {
					return
				}
				t0 := time.Now()
				_, err := rt.Handle(ctx, h)
				mu.Lock()
				shots = append(shots, shot{latency: time.Since(t0), err: err})
				mu.Unlock()
				if wait := min(think, time.Until(end)); wait > 0 {
					t := time.NewTimer(wait)
					select {
					case <-ctx.Done():
						t.Stop()
						return
					case <-t.C:
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cpython: ModelClosedVUs: %w", err)
	}
	label := load.Closed{VUs: vus, Duration: duration, Think: think}.String()
	return modelFrame(loadFrame("model closed VUs", strategy, "model", label, shots, elapsed), rts), nil
}

func startRuntimes(ctx context.Context, cfg pymodel.Config, workers int) ([]*pymodel.Runtime, error) {
	if workers < 0 || workers > 64 {
		return nil, fmt.Errorf("cpython: model workers must be in 0..64, got %d", workers)
	}
	workers = max(workers, 1)
	var rts []*pymodel.Runtime
	for i := 0; i < workers; i++ {
		c := cfg
		if workers > 1 {
			c.Worker = i + 1 // one recorder (cfg.Trace) tells the processes apart
		}
		rt, err := pymodel.New(c)
		if err == nil {
			err = rt.Start(ctx)
		}
		if err != nil {
			closeRuntimes(rts)
			return nil, fmt.Errorf("cpython: model: %w", err)
		}
		rts = append(rts, rt)
	}
	return rts, nil
}

func closeRuntimes(rts []*pymodel.Runtime) {
	for _, rt := range rts {
		rt.Close()
	}
}

func modelFrame(f *frame.Frame, rts []*pymodel.Runtime) *frame.Frame {
	var gil, loop, queue time.Duration
	for _, rt := range rts {
		s := rt.Stats()
		gil += s.GIL.Wait
		loop += s.Loop.Busy
		queue += s.QueueWait
	}
	return extend(f, func(_ int, r frame.Row) {
		r["gil_wait_ms"] = gil
		r["loop_blocked_ms"] = loop
		r["queue_wait_ms"] = queue
	})
}
