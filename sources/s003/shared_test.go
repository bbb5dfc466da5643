package s003_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/sources/s003"
)

// Shared servers: the I/O and the CPU burst run on one real server (one
// URL), each run's trace holds its own N requests only, and Close ends the
// server.
func TestServersShared(t *testing.T) {
	needPython(t, "flask", "gunicorn")
	k := s003.Default
	k.N, k.Wait, k.SumN = 3, 50*time.Millisecond, 10_000
	k.IO, k.CPU = []s003.Stack{{Workers: 2, Threads: 2}}, []s003.Stack{{Workers: 2, Threads: 2}}
	ctx := context.Background()
	shared := s003.NewServers(ctx)
	defer shared.Close()
	var mu sync.Mutex
	var urls []string
	setup := func(_ context.Context, srv strategy.Server) error {
		mu.Lock()
		defer mu.Unlock()
		urls = append(urls, srv.URL())
		return nil
	}
	var runs []*bench.Result
	for _, e := range []bench.Experiment{k.IOVersus(cpython.Options{Trace: true}), k.CPUVersus(time.Millisecond, 1, cpython.Options{Trace: true})} {
		e.Strategies, e.Setup = e.Strategies[1:], setup // the real rows only
		res, err := bench.Run(ctx, shared.Experiment(e))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, res)
	}
	if len(urls) != 2 || urls[0] != urls[1] {
		t.Fatalf("servers %v; want one, used twice", urls)
	}
	for i, res := range runs {
		n := 0
		seen := map[int64]bool{}
		for _, e := range res.Traces[0].Events {
			if e.Phase == trace.Handler && !seen[e.Request] {
				seen[e.Request], n = true, n+1
			}
		}
		if n != k.N || !seen[1] || !seen[int64(k.N)] {
			t.Errorf("run %d: %d requests traced (%v); want its own %d, numbered from 1", i, n, seen, k.N)
		}
		if c := res.Summary.Float("count", 0); c != float64(k.N) {
			t.Errorf("run %d: count %v", i, c)
		}
	}
	if err := shared.Close(); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(urls[0] + "/io?s=0"); err == nil {
		resp.Body.Close()
		t.Errorf("the server answers after Close")
	}
}
