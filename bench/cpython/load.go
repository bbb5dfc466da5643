package cpython

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/frame"
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

func newClient(conns int) (*http.Client, *http.Transport) {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: 30 * time.Second}
	return &http.Client{Transport: tr, Timeout: RequestTimeout}, tr
}

func (r Request) do(ctx context.Context, c *http.Client) shot {
	m := r.Method
	if m == "" {
		m = http.MethodGet
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, m, r.URL, body)
	if err != nil {
		return shot{err: err}
	}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return shot{latency: time.Since(t0), err: err}
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(t0)
	if err == nil && resp.StatusCode >= 400 {
		err = fmt.Errorf("status %d", resp.StatusCode)
	}
	return shot{latency: d, err: err}
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
// times the batch (elapsed_s) and each request. It returns a one-row
// summary frame labelled strategy. Failed requests count in errors; the
// first one's text is in first_error. Cancelling ctx aborts the requests.
func Burst(ctx context.Context, strategy string, req Request, n int) (*frame.Frame, error) {
	if n <= 0 || n > MaxBurst {
		return nil, fmt.Errorf("cpython: Burst: n must be in 1..%d, got %d", MaxBurst, n)
	}
	if req.URL == "" {
		return nil, errors.New("cpython: Burst: request has no URL")
	}
	c, tr := newClient(n)
	defer tr.CloseIdleConnections()
	shots := make([]shot, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range shots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			shots[i] = req.do(ctx, c)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cpython: Burst: %w", err)
	}
	return loadFrame("burst", strategy, "go burst", "burst "+strconv.Itoa(n), shots, elapsed), nil
}

// ClosedVUs runs k6's constant-VUs executor: vus virtual users each send req,
// wait for the answer, sleep think, and repeat until duration has passed;
// iterations in flight then finish (bounded by RequestTimeout). Source 000's
// script is ClosedVUs(ctx, s, upload, 20, 10*time.Second, time.Second). It
// returns a one-row summary frame; elapsed_s runs until the last answer.
func ClosedVUs(ctx context.Context, strategy string, req Request, vus int, duration, think time.Duration) (*frame.Frame, error) {
	if vus <= 0 || vus > MaxVUs {
		return nil, fmt.Errorf("cpython: ClosedVUs: vus must be in 1..%d, got %d", MaxVUs, vus)
	}
	if duration <= 0 || duration > time.Hour || think < 0 {
		return nil, fmt.Errorf("cpython: ClosedVUs: duration must be in (0, 1h] and think not negative, got %v and %v", duration, think)
	}
	if req.URL == "" {
		return nil, errors.New("cpython: ClosedVUs: request has no URL")
	}
	c, tr := newClient(vus)
	defer tr.CloseIdleConnections()
	var mu sync.Mutex
	var shots []shot
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(duration)
	for v := 0; v < vus; v++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) && ctx.Err() == nil {
				s := req.do(ctx, c)
				mu.Lock()
				full := len(shots) >= MaxRequests
				if !full {
					shots = append(shots, s)
				}
				mu.Unlock()
				if full {
					return
				}
				if think > 0 {
					t := time.NewTimer(think)
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
		return nil, fmt.Errorf("cpython: ClosedVUs: %w", err)
	}
	load := fmt.Sprintf("%d VUs %v think %v", vus, duration, think)
	f := loadFrame("closed VUs", strategy, "go closed VUs", load, shots, elapsed)
	return f, nil
}
