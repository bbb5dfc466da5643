package cpython

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/metrics"
	"github.com/conclab/conclab/bench/pymodel"
)

// modelClient is a modelled Python client process (sources 002 and 004:
// the thing measured is the client): one pymodel runtime configured as the
// client is (one thread, a pool of threads, an event loop), handling h once
// per call, all n calls issued at once as the client's own code issues
// them (a for loop is a one-thread pool; gather is a loop of coroutines).
// Each call is recorded through bench/metrics from its issue to its end,
// as the real client scripts time theirs; the Result's labels are labels.
// This is not a load generator: nothing is sent to a server unless h's
// steps send it.
func modelClient(ctx context.Context, cfg pymodel.Config, h pymodel.Handler, n int, labels map[string]string) (*metrics.Result, error) {
	if n <= 0 || n > 10000 {
		return nil, fmt.Errorf("cpython: model client: n must be in 1..10000, got %d", n)
	}
	rt, err := pymodel.New(cfg)
	if err == nil {
		err = rt.Start(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("cpython: model client: %w", err)
	}
	defer rt.Close()
	start := time.Now()
	rec, err := metrics.NewRecorder(start, metrics.Options{})
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			_, err := rt.Handle(ctx, h)
			s := metrics.Sample{Outcome: metrics.OK, Latency: time.Since(t0), Err: err}
			if err != nil {
				s.Outcome = metrics.Other
			}
			rec.Record(i, &s)
		}()
	}
	wg.Wait()
	end := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cpython: model client: %w", err)
	}
	return rec.Finish(end, 0, labels), nil
}
