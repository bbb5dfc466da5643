package byo

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/charts"
)

// Lab is a lesson's runs for some knobs. It records, for its last
// experiment's run, every request as the load generator saw it, per server,
// and one request alone per server (Burst). Use one Lab per run at a time.
type Lab struct {
	k Knobs

	mu     sync.Mutex
	labels []string                  // the experiment's strategies, in order
	cur    int                       // the strategy being loaded: index into labels
	reqs   map[string][]load.Request // per label, as sent
	single map[string]time.Duration  // per label: one request alone
}

// New is a Lab for these knobs.
func New(k Knobs) *Lab { return &Lab{k: k} }

// Knobs are the Lab's knobs.
func (l *Lab) Knobs() Knobs { return l.k }

// strategies are the demo servers (only the one at a time when alone is
// set) and, when URL is set, the learner's.
func (l *Lab) strategies(onlyOne bool) []strategy.Strategy {
	var ss []strategy.Strategy
	if !onlyOne {
		ss = append(ss, Demo{Name: Concurrent, Wait: l.k.Wait})
	}
	ss = append(ss, Demo{Name: OneAtATime, Wait: l.k.Wait, OneAtATime: true})
	if l.k.URL != "" {
		ss = append(ss, strategy.External{Name: YourServer, URL: l.k.URL})
	}
	return ss
}

// experiment wires the recorder into e: Setup notes which server is
// loaded (and, with single, times one request alone to it first), Requests
// keeps every request.
func (l *Lab) experiment(e bench.Experiment, single bool) bench.Experiment {
	l.mu.Lock()
	l.labels, l.cur, l.reqs, l.single = nil, -1, map[string][]load.Request{}, map[string]time.Duration{}
	for _, s := range e.Strategies {
		l.labels = append(l.labels, s.Label())
	}
	l.mu.Unlock()
	path := l.k.Path
	if path == "" {
		path = "/work"
	}
	e.Request = load.Target{URL: path}
	e.Setup = func(ctx context.Context, srv strategy.Server) error {
		l.mu.Lock()
		l.cur++
		label := l.labels[min(l.cur, len(l.labels)-1)]
		l.mu.Unlock()
		if !single {
			return nil
		}
		d, err := once(ctx, srv.URL()+path)
		if err != nil {
			return fmt.Errorf("byo: %s: one request alone: %w", label, err)
		}
		l.mu.Lock()
		l.single[label] = d
		l.mu.Unlock()
		return nil
	}
	e.Options.Requests = func(batch []load.Request) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.cur >= 0 && l.cur < len(l.labels) {
			label := l.labels[l.cur]
			l.reqs[label] = append(l.reqs[label], batch...)
		}
		return nil
	}
	return e
}

// once times one GET of url (any answer counts; no answer is an error).
func once(ctx context.Context, url string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	c := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = drain(resp)
	return time.Since(start), nil
}

// Burst is the burst: each server is sent one request alone (single_ms),
// then N at once.
func (l *Lab) Burst() bench.Experiment {
	return l.experiment(bench.Experiment{
		Name:       fmt.Sprintf("a burst of %d: the demo servers (waiting %v) and yours", l.k.N, l.k.Wait),
		Strategies: l.strategies(false),
		Load:       load.Burst{N: l.k.N},
	}, true)
}

// Open is the open load: requests due at Rate per second for Duration, to
// the one-at-a-time demo server (and yours), over at most InFlight
// connections; a request due while all are busy is sent late, and one
// still unsent at the end is dropped.
func (l *Lab) Open() bench.Experiment {
	return l.experiment(bench.Experiment{
		Name:       fmt.Sprintf("an open load: %g a second for %v, %d connection(s)", l.k.Rate, l.k.Duration, l.k.InFlight),
		Strategies: l.strategies(true),
		Load:       load.Open{Rate: l.k.Rate, Duration: l.k.Duration, MaxInFlight: l.k.InFlight},
	}, false)
}

// Summary is res's summary (Burst's or Open's) with, per server, single_ms
// (one request alone, Burst only), waits (elapsed over it) and
// concurrency (N × single ÷ elapsed: how many the server ran at once).
func (l *Lab) Summary(res *bench.Result) (*frame.Frame, error) {
	l.mu.Lock()
	single := map[string]time.Duration{}
	for k, v := range l.single {
		single[k] = v
	}
	l.mu.Unlock()
	f := res.Summary
	if len(single) == 0 {
		return f, nil
	}
	get := func(r frame.Row) (float64, bool) {
		d, ok := single[r.Text("strategy")]
		return float64(d) / 1e6, ok
	}
	f, err := f.Compute("single_ms", func(r frame.Row) any {
		if v, ok := get(r); ok {
			return v
		}
		return nil
	})
	if err == nil {
		f, err = f.Compute("waits", func(r frame.Row) any {
			if v, ok := get(r); ok && v > 0 {
				return r.Float("elapsed_s") * 1000 / v
			}
			return nil
		})
	}
	if err == nil {
		f, err = f.Compute("concurrency", func(r frame.Row) any {
			if v, ok := get(r); ok && r.Float("elapsed_s") > 0 {
				return r.Float("count") * v / (r.Float("elapsed_s") * 1000)
			}
			return nil
		})
	}
	if err == nil && l.k.URL != "" {
		// The table says which server "your server" was.
		f.Name = strings.TrimSpace(f.Name + " (" + YourServer + ": " + l.k.URL + l.k.Path + ")")
	}
	return f, err
}

// ClientTrace is the last run's requests from the client's side, as trace
// rows (bench.TraceColumns) for charts.Waterfall: per server, one request
// per row in the order they were due (a burst's in the order answered), "queue" from when it was due to
// when it was sent (the generator late: every connection busy), "handler"
// from the send to the answer's last byte. Times are from the first
// request due to each server.
func (l *Lab) ClientTrace() *frame.Frame {
	f := frame.Of("the requests, from the client's side", bench.TraceColumns...)
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, label := range l.labels {
		rs := append([]load.Request(nil), l.reqs[label]...)
		if len(rs) == 0 {
			continue
		}
		sortByIntended(rs)
		origin := rs[0].Intended
		ms := func(t time.Time) float64 { return float64(t.Sub(origin)) / 1e6 }
		for i, r := range rs {
			row := func(p trace.Phase, a, b time.Time) {
				f.MustAppend(frame.Row{"strategy": label, "request": i + 1, "worker": 0, "thread": fmt.Sprintf("conn %d", r.Conn),
					"phase": string(p), "start_ms": ms(a), "end_ms": ms(b)})
			}
			if r.Start.Sub(r.Intended) > time.Millisecond {
				row(trace.Queue, r.Intended, r.Start)
			}
			end := r.Start.Add(r.Uncorrected)
			if r.Uncorrected == 0 {
				end = r.Start
			}
			row(trace.Handler, r.Start, end)
		}
	}
	return f
}

// sortByIntended orders requests by when they were due, then (a burst's,
// all due at once) by when their answer came.
func sortByIntended(rs []load.Request) {
	before := func(a, b load.Request) bool {
		if !a.Intended.Equal(b.Intended) {
			return a.Intended.Before(b.Intended)
		}
		return a.Start.Add(a.Uncorrected).Before(b.Start.Add(b.Uncorrected))
	}
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && before(rs[j], rs[j-1]); j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// Estimate is the arithmetic: for the demo servers' burst, waves
// (⌈N / c⌉: c = N concurrent, 1 one at a time) and elapsed_s (waves ×
// Wait); for the open load on the one-at-a-time server (μ = 1/Wait a
// second), whether it keeps up, the requests sent (all Rate × Duration
// when InFlight can hold the queue, else about μ × Duration, the rest
// dropped) and the last one's response time from when it was due:
// k × (1/μ − 1/λ) waiting for its turn, plus Wait.
func (k Knobs) Estimate() *frame.Frame {
	f := frame.Of("estimated", "strategy", "load", "waves", "elapsed_s", "sent", "dropped", "last_ms")
	for _, s := range []struct {
		name string
		c    int
	}{{Concurrent, k.N}, {OneAtATime, 1}} {
		w := (k.N + s.c - 1) / s.c
		f.MustAppend(frame.Row{"strategy": s.name, "load": "burst", "waves": w, "elapsed_s": float64(w) * k.Wait.Seconds()})
	}
	lambda, mu, T := k.Rate, 1/k.Wait.Seconds(), k.Duration.Seconds()
	due := math.Floor(lambda*T + 1e-9)
	sent, last := due, k.Wait.Seconds()
	if lambda > mu {
		behind := 1/mu - 1/lambda // each request falls this much further behind
		if k.InFlight > 1 {
			last += due * behind // the queue forms at the server; all are sent
		} else {
			sent = math.Min(due, math.Floor(mu*T+1e-9)) // one connection: the generator falls behind
			last += sent * behind
		}
	}
	f.MustAppend(frame.Row{"strategy": OneAtATime, "load": "open", "sent": sent, "dropped": due - sent, "last_ms": last * 1000})
	return f
}

func drain(resp *http.Response) (int64, error) {
	defer resp.Body.Close()
	return io.Copy(io.Discard, resp.Body)
}

// Picture is lab.Try's Picture for the Lab's runs: the last run's
// requests from the client's side (ClientTrace) as a waterfall.
func (l *Lab) Picture(*bench.Result) any { return charts.Waterfall(l.ClientTrace()) }
