package cpython

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/metrics"
)

// Client is a source's own client script (001's httpx bench, 002's three
// health-check clients, 004's posting clients): a Python process that makes
// its own requests and prints one JSON object with elapsed_s (first send to
// last answer) and requests, one [latency_ms, error] per request — error
// "" for a success, "httpNNN" for a 4xx/5xx answer, an exception's type
// name otherwise — plus any figures of its own (threads, cpu_s, rss_mb,
// rows, order, in_order). Run records the requests through bench/metrics,
// so its row means what a bench.Run row means under the same columns.
type Client struct {
	Script
	// Label is the row's strategy column; Load its load column ("100
	// checks", "26 posts").
	Label, Load string
}

// ClientColumns are the client's own figures Run copies into its row when
// the script prints them.
var ClientColumns = []string{"threads", "cpu_s", "rss_mb", "rows", "order", "in_order"}

// Run runs the client and returns its summary row: bench/metrics' summary
// columns (strategy Label, workload "client", load Load, count, errors,
// elapsed_s, rps, the latency statistics, ...), then client (the script's
// name), the ClientColumns it printed and error_kinds, described with the
// environment (Env.Describe). A missing interpreter or module is a
// *MissingError.
func (c Client) Run(ctx context.Context, opts Options) (*frame.Frame, error) {
	var m map[string]any
	if err := c.Script.Run(ctx, opts, &m); err != nil {
		return nil, err
	}
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	samples, kinds, err := clientRequests(c.Name, m)
	if err != nil {
		return nil, err
	}
	el, ok := m["elapsed_s"].(float64)
	if !ok || el < 0 {
		return nil, fmt.Errorf("cpython: %s printed no elapsed_s", c.Name)
	}
	res, err := recordClient(samples, time.Duration(el*float64(time.Second)), map[string]string{
		metrics.LabelStrategy: c.Label, metrics.LabelWorkload: "client", metrics.LabelLoad: c.Load})
	if err != nil {
		return nil, err
	}
	f := res.Summary()
	f.Name = c.Label
	f = f.With("client", strings.TrimSuffix(c.Name, ".py"))
	out := extend(f, func(_ int, r frame.Row) {
		for _, k := range ClientColumns {
			switch v := m[k].(type) {
			case float64, string, bool:
				r[k] = v
			}
		}
		r["error_kinds"] = strings.Join(kinds, ", ")
	})
	return env.Describe(out), nil
}
