package s000upload

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

// Probe asks one path of every server of an experiment (the real app's
// /health) at a steady pace while the server runs its load, one request
// at a time, and keeps each answer's time: what a health check — a load
// balancer's, Kubernetes' — would see while the app converts uploads.
//
// Probe.Experiment wraps the experiment's strategies; bench.Run (lab.Run)
// then runs it as usual. A server's probing starts when the server is
// ready and stops at the first of: the server's figures being read (which
// bench.Run does as soon as its load has ended), its Close, Max probes,
// and the run's context ending. A probe still waiting when probing stops
// is given until its timeout (Every × 100, at least 10 s) to answer. Only
// loopback servers are probed.
type Probe struct {
	// Path is the path asked ("/health").
	Path string
	// Every is the pace: a probe starts every Every, or as soon as the
	// previous one answered when it took longer.
	Every time.Duration
	// Max bounds the probes a server gets (0: 1200).
	Max int

	mu     sync.Mutex
	order  []string
	probes map[string][]probeAnswer
}

// probeAnswer is one probe: when it started (from the server's start), how
// long it took, and whether it failed.
type probeAnswer struct {
	at, took time.Duration
	failed   bool
}

// HealthProbe asks the real app's /health every 100 ms, as the source's
// demonstration does.
func HealthProbe() *Probe { return &Probe{Path: "/health", Every: 100 * time.Millisecond} }

// Experiment is e with every strategy probed. Run it once: a second run's
// probes are added to the first's.
func (p *Probe) Experiment(e bench.Experiment) bench.Experiment {
	out := e
	out.Strategies = make([]strategy.Strategy, len(e.Strategies))
	for i, s := range e.Strategies {
		out.Strategies[i] = probed{Strategy: s, p: p}
	}
	return out
}

func (p *Probe) validate() error {
	if p == nil || p.Every < time.Millisecond || p.Every > time.Minute || p.Max < 0 || p.Max > 100_000 || len(p.Path) == 0 || p.Path[0] != '/' {
		return fmt.Errorf("s000upload: Probe: want a path such as /health, Every in 1ms..1m and Max in 0..100000, got %+v", p)
	}
	return nil
}

// Frame is the probes' times per server: strategy, probes, errors, and
// the answered probes' p50_ms, p95_ms and max_ms (charts.Latency draws
// it with "p50", "p95", "max").
func (p *Probe) Frame() *frame.Frame {
	f := frame.Of(fmt.Sprintf("GET %s every %v during each style's load", p.Path, p.Every), "strategy", "probes", "errors", "p50_ms", "p95_ms", "max_ms")
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, label := range p.order {
		var ms []float64
		errs := 0
		for _, a := range p.probes[label] {
			if a.failed {
				errs++
				continue
			}
			ms = append(ms, a.took.Seconds()*1000)
		}
		slices.Sort(ms)
		r := frame.Row{"strategy": label, "probes": float64(len(p.probes[label])), "errors": float64(errs)}
		r["p50_ms"], r["p95_ms"], r["max_ms"] = quantile(ms, 0.5), quantile(ms, 0.95), quantile(ms, 1)
		f.MustAppend(r)
	}
	return f
}

func (p *Probe) add(label string, a probeAnswer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.probes == nil {
		p.probes = map[string][]probeAnswer{}
	}
	if _, ok := p.probes[label]; !ok {
		p.order = append(p.order, label)
	}
	p.probes[label] = append(p.probes[label], a)
}

// probed is a strategy whose server is probed while it runs.
type probed struct {
	strategy.Strategy
	p *Probe
}

// RequestPath and Available pass the wrapped strategy's on.
func (s probed) RequestPath() string {
	if rp, ok := s.Strategy.(interface{ RequestPath() string }); ok {
		return rp.RequestPath()
	}
	return ""
}

func (s probed) Available(ctx context.Context) error {
	if av, ok := s.Strategy.(interface{ Available(context.Context) error }); ok {
		return av.Available(ctx)
	}
	return nil
}

func (s probed) Validate() error {
	if err := s.p.validate(); err != nil {
		return err
	}
	return s.Strategy.Validate()
}

func (s probed) Start(ctx context.Context, w pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	if err := s.p.validate(); err != nil {
		return nil, err
	}
	srv, err := s.Strategy.Start(ctx, w, o)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(srv.URL())
	if ip := net.ParseIP(u.Hostname()); err != nil || ip == nil || !ip.IsLoopback() {
		srv.Close()
		return nil, fmt.Errorf("s000upload: Probe: server %q is not on loopback", srv.URL())
	}
	ps := &probedServer{Server: srv, stop: make(chan struct{}), done: make(chan struct{})}
	ctx, ps.cancel = context.WithCancel(ctx)
	go ps.run(ctx, s.p, s.Label(), srv.URL()+s.p.Path)
	return ps, nil
}

// probedServer is a server with its prober running.
type probedServer struct {
	strategy.Server
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	cancel   context.CancelFunc
}

func (ps *probedServer) run(ctx context.Context, p *Probe, label, target string) {
	defer close(ps.done)
	timeout := max(10*time.Second, 100*p.Every)
	tr := &http.Transport{MaxIdleConns: 1, MaxIdleConnsPerHost: 1, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: timeout}
	limit := p.Max
	if limit == 0 {
		limit = 1200
	}
	start := time.Now()
	for i := 0; i < limit; i++ {
		select {
		case <-ps.stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		at := time.Now()
		a := probeAnswer{at: at.Sub(start)}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err == nil {
			var resp *http.Response
			if resp, err = client.Do(req); err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err == nil && resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
		}
		if ctx.Err() != nil {
			return // cut off by Close or the run's end: not an answer
		}
		a.took, a.failed = time.Since(at), err != nil
		p.add(label, a)
		if wait := p.Every - time.Since(at); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ps.stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}
}

// Stats stops the probing (bench.Run reads them as soon as the load has
// ended), letting a probe under way answer, then reads the server's.
func (ps *probedServer) Stats() strategy.Stats {
	ps.stopOnce.Do(func() { close(ps.stop) })
	<-ps.done
	return ps.Server.Stats()
}

// Close stops the probing at once, then the server.
func (ps *probedServer) Close() error {
	ps.stopOnce.Do(func() { close(ps.stop) })
	ps.cancel()
	<-ps.done
	return ps.Server.Close()
}

// quantile is the nearest-rank q-quantile of sorted xs (NaN when empty).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}
