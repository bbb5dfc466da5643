package cpython

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/metrics"
)

// A client script's figures go through bench/metrics like the load
// generator's: the same HDR percentiles, the same avg, the same rps (every
// request over the batch's elapsed time), so a frame from a Python client
// and one from bench.Run mean the same thing under the same column names.

// outcomeOf classifies a client script's error string: "" is a success,
// "httpNNN" a response with that status, an exception's type name a
// timeout, a connection error or another failure.
func outcomeOf(kind string) metrics.Outcome {
	switch {
	case kind == "":
		return metrics.OK
	case strings.HasPrefix(kind, "http4"):
		return metrics.Status4xx
	case strings.HasPrefix(kind, "http5"):
		return metrics.Status5xx
	case strings.HasPrefix(kind, "http"):
		return metrics.Other
	case strings.Contains(strings.ToLower(kind), "timeout"):
		return metrics.Timeout
	case strings.Contains(strings.ToLower(kind), "connect"):
		return metrics.Conn
	}
	return metrics.Other
}

// clientRequests decodes a script's "requests": one [latency_ms, error]
// per request.
func clientRequests(script string, m map[string]any) ([]metrics.Sample, []string, error) {
	xs, ok := m["requests"].([]any)
	if !ok {
		return nil, nil, fmt.Errorf("cpython: %s printed no requests list", script)
	}
	out := make([]metrics.Sample, 0, len(xs))
	kinds := map[string]bool{}
	for i, x := range xs {
		pair, ok := x.([]any)
		if !ok || len(pair) != 2 {
			return nil, nil, fmt.Errorf("cpython: %s: request %d is not [latency_ms, error]", script, i)
		}
		lat, ok1 := pair[0].(float64)
		kind, ok2 := pair[1].(string)
		if !ok1 || !ok2 || lat < 0 {
			return nil, nil, fmt.Errorf("cpython: %s: request %d is not [latency_ms, error]: %v", script, i, pair)
		}
		s := metrics.Sample{Outcome: outcomeOf(kind), Latency: time.Duration(lat * float64(time.Millisecond))}
		if kind != "" {
			s.Err = fmt.Errorf("%s", kind)
			kinds[kind] = true
		}
		out = append(out, s)
	}
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return out, ks, nil
}

// recordClient records a client's requests through bench/metrics: the run
// lasted elapsed (the script's own clock, first send to last answer) and
// its figures are the Result's.
func recordClient(samples []metrics.Sample, elapsed time.Duration, labels map[string]string) (*metrics.Result, error) {
	start := time.Now()
	rec, err := metrics.NewRecorder(start, metrics.Options{Shards: 1})
	if err != nil {
		return nil, err
	}
	for i := range samples {
		rec.Record(0, &samples[i])
	}
	return rec.Finish(start.Add(elapsed), 0, labels), nil
}

// extend returns a copy of f, keeping its column order, with each row
// passed through set (which may add columns, appended after f's).
func extend(f *frame.Frame, set func(i int, r frame.Row)) *frame.Frame {
	out := frame.New(f.Name)
	for _, c := range f.Columns() {
		k, _ := f.KindOf(c)
		_ = out.AddColumn(c, k)
	}
	for i, r := range f.Rows() {
		set(i, r)
		out.MustAppend(r)
	}
	return out
}
