package cpython

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/trace"
)

// Source 002, model and real clients side by side: one row per client and
// side, every check counted; on both sides the sequential client takes at
// least its n waits, and the pool of 5 and gather beat it.
func TestVersus002(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "requests", "aiohttp")
	const wait, n = 50 * time.Millisecond, 10
	clients := []Client002{{Sequential, 0, n}, {Threads, 5, n}, {AsyncIO, 0, n}}
	f, err := Versus002(context.Background(), Options{StopGrace: time.Second}, wait, clients)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", f)
	if f.Len() != 6 {
		t.Fatalf("%d rows; want 6", f.Len())
	}
	el := map[string]float64{}
	for i := 0; i < f.Len(); i++ {
		l := f.Text("strategy", i)
		if f.Float("count", i) != n || f.Float("errors", i) != 0 {
			t.Errorf("%s: count %v errors %v", l, f.Float("count", i), f.Float("errors", i))
		}
		el[l] = f.Float("elapsed_s", i)
	}
	for _, side := range []string{"", RealPrefix} {
		seq := el[side+clients[0].Label()]
		if seq < n*wait.Seconds()*0.95 {
			t.Errorf("%ssequential: %.3fs below %d waits", side, seq, n)
		}
		for _, c := range clients[1:] {
			if el[side+c.Label()] >= seq {
				t.Errorf("%s%s (%.3fs) not faster than sequential (%.3fs)", side, c.Label(), el[side+c.Label()], seq)
			}
		}
		if side == RealPrefix && !(f.Float("cpu_s", 3) >= 0) {
			t.Errorf("real rows lack the client's cpu_s:\n%v", f)
		}
	}
	if _, err := Versus002(context.Background(), Options{}, 0, clients); err == nil {
		t.Error("zero wait: no error")
	}
}

// The modelled clients' traces show the waves of a pool exactly.
func TestTrace002(t *testing.T) {
	t.Parallel()
	f, err := Trace002(context.Background(), 50*time.Millisecond, []Client002{{Threads, 4, 10}, {AsyncIO, 0, 10}})
	if err != nil {
		t.Fatal(err)
	}
	pool := bench.EventsOf(f, "ThreadPoolExecutor 4")
	if got := trace.MaxOverlap(pool, trace.IO); got != 4 {
		t.Errorf("pool of 4: %d waits at once; want 4", got)
	}
	if got := trace.MaxOverlap(bench.EventsOf(f, "asyncio + aiohttp"), trace.IO); got != 10 {
		t.Errorf("gather: %d waits at once; want 10", got)
	}
	if _, err := Trace002(context.Background(), time.Second, []Client002{{Mode: "bulk", N: 1}}); err == nil || !strings.Contains(err.Error(), "bulk") {
		t.Errorf("unknown mode: %v", err)
	}
}
