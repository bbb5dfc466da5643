package cpython

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
)

// Limits of the Go load generator: every run is bounded in count and time.
const (
	MaxBurst       = 10000
	MaxVUs         = 1000
	MaxRequests    = 200000
	RequestTimeout = 120 * time.Second
)

// Request is one HTTP request the Go load generator repeats.
type Request struct {
	Method      string // "" means GET
	URL         string
	Body        []byte
	ContentType string
}

// Get is a GET of url.
func Get(url string) Request { return Request{Method: http.MethodGet, URL: url} }

// Upload is a multipart/form-data POST of the file at path as form field
// "file" — k6's http.file in source 000's script.
func Upload(url, path string) (Request, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Request{}, fmt.Errorf("cpython: upload: %w", err)
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile("file", filepath.Base(path))
	if err != nil {
		return Request{}, err
	}
	part.Write(data)
	if err := w.Close(); err != nil {
		return Request{}, err
	}
	return Request{Method: http.MethodPost, URL: url, Body: buf.Bytes(), ContentType: w.FormDataContentType()}, nil
}

type shot struct {
	latency time.Duration
	err     error
}

// target is req as the lab's load generator's Target.
func (r Request) target() load.Target {
	t := load.Target{URL: r.URL, Method: r.Method, Body: r.Body}
	if r.ContentType != "" {
		t.Header = http.Header{"Content-Type": {r.ContentType}}
	}
	return t
}

// runLoad runs m against req on bench/load, the lab's instrument (each
// request bounded by RequestTimeout; requests in flight at the end may
// finish within RequestTimeout), and returns a one-row frame in this
// package's summary columns. Failed requests count in errors (a run where
// every request failed is not an error here); the first failure's text is
// in first_error, and the generator's self-check warnings, if any, in
// warnings.
//
// serverCPU, when not nil, is the CPU of a server in this process (a model
// server over HTTP), left out of the self-check's CPU share.
func runLoad(ctx context.Context, who, name, strategy, client string, req Request, m load.Model, serverCPU func() time.Duration) (*frame.Frame, error) {
	if req.URL == "" {
		return nil, fmt.Errorf("cpython: %s: request has no URL", who)
	}
	res, err := load.Run(ctx, req.target(), m, load.Options{
		Timeout: RequestTimeout, GracefulStop: RequestTimeout, MaxRequests: MaxRequests,
		MaxDuration: 2 * time.Hour, Strategy: strategy, ServerCPU: serverCPU,
	})
	if cerr := ctx.Err(); cerr != nil {
		return nil, fmt.Errorf("cpython: %s: %w", who, cerr)
	}
	if res == nil {
		return nil, fmt.Errorf("cpython: %s: %w", who, err)
	}
	lat := res.Latency
	errs := res.Errors()
	r := frame.Row{"strategy": strategy, "client": client, "load": m.String(), "count": res.Count(), "errors": errs,
		"elapsed_s": res.Elapsed.Seconds()}
	if res.Elapsed > 0 {
		r["rps"] = float64(res.Count()-errs) / res.Elapsed.Seconds()
	}
	if lat.Count > 0 {
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		r["min_ms"], r["avg_ms"], r["med_ms"] = ms(lat.Min), ms(lat.Avg), ms(lat.Med)
		r["p90_ms"], r["p95_ms"], r["p99_ms"], r["max_ms"] = ms(lat.P90), ms(lat.P95), ms(lat.P99), ms(lat.Max)
	}
	if errs > 0 && len(res.ErrorSamples) > 0 {
		r["first_error"] = res.ErrorSamples[0]
	}
	if len(res.Warnings) > 0 { // the generator's self-check (the apps run in other processes)
		r["warnings"] = strings.Join(res.Warnings, "; ")
	}
	f := newSummaryFrame(name)
	f.MustAppend(r)
	return f, nil
}

func loadFrame(name, strategy, client, load string, shots []shot, elapsed time.Duration) *frame.Frame {
	var lat []float64
	errs := 0
	var first error
	for _, s := range shots {
		if s.err != nil {
			errs++
			if first == nil {
				first = s.err
			}
			continue
		}
		lat = append(lat, float64(s.latency)/float64(time.Millisecond))
	}
	r := latencyRow(lat)
	r["strategy"], r["client"], r["load"] = strategy, client, load
	r["count"] = len(shots)
	r["errors"] = errs
	r["elapsed_s"] = elapsed.Seconds()
	if elapsed > 0 {
		r["rps"] = float64(len(lat)) / elapsed.Seconds()
	}
	if first != nil {
		r["first_error"] = first.Error()
	}
	f := newSummaryFrame(name)
	f.MustAppend(r)
	return f
}

// Burst sends n copies of req at once — each on its own connection — and
// times the batch (elapsed_s) and each request, with the lab's load
// generator (bench/load). It returns a one-row summary frame labelled
// strategy. Failed requests count in errors; the first one's text is in
// first_error; latencies cover every answer, 4xx and 5xx included. The
// target must be loopback, as for all of the lab's load. Cancelling ctx
// aborts the requests.
func Burst(ctx context.Context, strategy string, req Request, n int) (*frame.Frame, error) {
	return burst(ctx, strategy, req, n, nil)
}

// burst is Burst against a server whose CPU serverCPU reports (nil: none
// in this process).
func burst(ctx context.Context, strategy string, req Request, n int, serverCPU func() time.Duration) (*frame.Frame, error) {
	if n <= 0 || n > MaxBurst {
		return nil, fmt.Errorf("cpython: Burst: n must be in 1..%d, got %d", MaxBurst, n)
	}
	return runLoad(ctx, "Burst", "burst", strategy, "go burst", req, load.Burst{N: n}, serverCPU)
}

// ClosedVUs runs k6's constant-VUs executor with the lab's load generator:
// vus virtual users each send req, wait for the answer, sleep think, and
// repeat until duration has passed; iterations in flight then finish
// (bounded by RequestTimeout), thinking ones stop. Source 000's script is
// ClosedVUs(ctx, s, upload, 20, 10*time.Second, time.Second). It returns a
// one-row summary frame; elapsed_s runs until the end or the last answer,
// whichever is later.
func ClosedVUs(ctx context.Context, strategy string, req Request, vus int, duration, think time.Duration) (*frame.Frame, error) {
	return closedVUs(ctx, strategy, req, vus, duration, think, nil)
}

// closedVUs is ClosedVUs against a server whose CPU serverCPU reports (nil:
// none in this process).
func closedVUs(ctx context.Context, strategy string, req Request, vus int, duration, think time.Duration, serverCPU func() time.Duration) (*frame.Frame, error) {
	if vus <= 0 || vus > MaxVUs {
		return nil, fmt.Errorf("cpython: ClosedVUs: vus must be in 1..%d, got %d", MaxVUs, vus)
	}
	if duration <= 0 || duration > time.Hour || think < 0 {
		return nil, fmt.Errorf("cpython: ClosedVUs: duration must be in (0, 1h] and think not negative, got %v and %v", duration, think)
	}
	return runLoad(ctx, "ClosedVUs", "closed VUs", strategy, "go closed VUs", req, load.Closed{VUs: vus, Duration: duration, Think: think}, serverCPU)
}
