package load

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// Run drives target with model until the model ends or a bound is hit,
// and returns the result. Invalid input is an error before any request is
// sent (and a nil result). Once requests were sent, the result is always
// returned; the error is then non-nil when ctx was cancelled (the result
// holds what was measured), when no request got any response (the error
// names the first failure) or when Options.Requests failed. A failed
// threshold is not an error: see Result.Passed.
func Run(ctx context.Context, t Target, m Model, o Options) (*metrics.Result, error) {
	c, err := prepare(ctx, t, m, o)
	if err != nil {
		return nil, err
	}
	defer c.transport.close()
	late, err := waitStart(ctx, c.o.StartAt)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(ctx, c, late)
	if err != nil {
		return nil, err
	}
	defer e.close()
	e.begin()
	m.run(e)
	res, err := e.finish()
	return res, verdict(ctx, t, res, err)
}

// config is a validated run: the options with their defaults, the model's
// plan, the parsed thresholds, the labels and the transport.
type config struct {
	o          Options
	plan       outline
	interval   time.Duration
	labels     map[string]string
	thresholds []metrics.Threshold
	transport  transport
}

// prepare validates everything before any packet: the model, the options,
// the thresholds, the plan against the bounds, the target.
func prepare(ctx context.Context, t Target, m Model, o Options) (*config, error) {
	if m == nil {
		return nil, errors.New("load: no model")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := o.normalise(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	c := &config{o: o, plan: m.outline()}
	var err error
	if c.thresholds, err = metrics.ParseThresholds(o.Thresholds...); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if c.plan.requests > o.MaxRequests {
		return nil, fmt.Errorf("load: the model plans %d requests, more than MaxRequests=%d: shorten it, raise MaxRequests, or split it over agents (bench/load/split)", c.plan.requests, o.MaxRequests)
	}
	if ahead := time.Until(o.StartAt); !o.StartAt.IsZero() && ahead > MaxStartDelay {
		return nil, fmt.Errorf("load: StartAt %s is %v ahead, more than MaxStartDelay (%v)", o.StartAt.Format(time.RFC3339), ahead.Round(time.Second), MaxStartDelay)
	}
	if c.o.ServerCPU == nil {
		c.o.ServerCPU = func() time.Duration { return 0 }
	}
	if c.interval = o.Interval; c.interval == 0 {
		c.interval = autoInterval(c.plan.duration)
	}
	c.labels = map[string]string{}
	for k, v := range o.Labels {
		c.labels[k] = v
	}
	c.labels[metrics.LabelStrategy], c.labels[metrics.LabelWorkload], c.labels[metrics.LabelLoad] = o.Strategy, o.Workload, o.Load
	if o.Load == "" {
		c.labels[metrics.LabelLoad] = m.String()
	}
	if c.transport, err = newTransport(ctx, t, &c.o); err != nil {
		return nil, err
	}
	return c, nil
}

// waitStart waits until at (a zero at: not at all) and returns how late
// it was met; ctx cancels the wait.
func waitStart(ctx context.Context, at time.Time) (time.Duration, error) {
	if at.IsZero() {
		return 0, nil
	}
	wait := time.Until(at)
	if wait <= 0 {
		return -wait, nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return 0, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("load: interrupted while waiting for StartAt %s: %w", at.Format(time.RFC3339), ctx.Err())
	}
}

// verdict is Run's error once requests were sent: the raw results' write
// error, the cancellation, or every request having failed.
func verdict(ctx context.Context, t Target, res *metrics.Result, logErr error) error {
	switch {
	case logErr != nil:
		return logErr
	case ctx.Err() != nil:
		return fmt.Errorf("load: run interrupted after %v: %w", res.Elapsed.Round(time.Millisecond), ctx.Err())
	case res.Count() > 0 && res.Latency.Count == 0:
		first := "unknown error"
		if len(res.ErrorSamples) > 0 {
			first = res.ErrorSamples[0]
		}
		return fmt.Errorf("load: all %d requests to %s failed, first: %s", res.Count(), t.URL, first)
	}
	return nil
}
