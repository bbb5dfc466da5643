package byo_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/sources/byo"
)

// The burst on the demo servers and a server of "yours" (an httptest
// server here): one request alone each, then N at once; the concurrent
// demo runs them together, the one-at-a-time demo in N waits.
func TestBurst(t *testing.T) {
	t.Parallel()
	yours := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/work" {
			http.NotFound(w, r)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}))
	defer yours.Close()
	k := byo.Default
	k.URL, k.N, k.Wait = yours.URL, 6, 40*time.Millisecond
	l := byo.New(k)
	res, err := bench.Run(context.Background(), l.Burst())
	if err != nil {
		t.Fatal(err)
	}
	f, err := l.Summary(res)
	if err != nil {
		t.Fatal(err)
	}
	if f.Len() != 3 {
		t.Fatalf("%d rows\n%v", f.Len(), f)
	}
	if !strings.Contains(f.String(), yours.URL+"/work") {
		t.Errorf("the summary does not say which server was yours (%s/work)\n%v", yours.URL, f)
	}
	for _, r := range f.Rows() {
		if r.Float("count") != 6 || r.Float("errors") != 0 || r.Float("single_ms") < 20 {
			t.Errorf("%s: count %v errors %v single %v", r.Text("strategy"), r.Float("count"), r.Float("errors"), r.Float("single_ms"))
		}
	}
	// The concurrent demo ran its six at once, the other one at a time: an
	// ordering, whatever the load does to the single request's time.
	if c0, c1 := f.Float("concurrency", 0), f.Float("concurrency", 1); !(c0 > 2*c1) {
		t.Errorf("concurrency: concurrent demo %v, one-at-a-time demo %v; want the first more than twice the second\n%v", c0, c1, f)
	}
	// One at a time: each of the 6 holds the lock for its whole wait, so the
	// burst cannot end before 6 waits, however loaded the machine (waits, the
	// elapsed over one request alone, moves with the single's own noise).
	if el := f.Float("elapsed_s", 1); el < 6*k.Wait.Seconds() {
		t.Errorf("one-at-a-time demo: %v s; want >= 6 waits of %v\n%v", el, k.Wait, f)
	}
	if w := f.Float("waits", 1); !(w > 1.5) {
		t.Errorf("one-at-a-time demo: %v waits; want several\n%v", w, f)
	}
	tr := l.ClientTrace()
	if got := len(tr.Where("strategy", byo.OneAtATime).Where("phase", "handler").Rows()); got != 6 {
		t.Errorf("client trace: %d handler rows for the one-at-a-time demo\n%v", got, tr)
	}
}

// The open load over one connection to the one-at-a-time demo, faster than
// it can serve: requests go out late (the corrected latency grows, the
// uncorrected stays near one wait) and those unsent at the end are
// dropped, as the estimate says.
func TestOpen(t *testing.T) {
	t.Parallel()
	k := byo.Knobs{Path: "/work", N: 1, Wait: 100 * time.Millisecond, Rate: 15, Duration: 2 * time.Second, InFlight: 1}
	l := byo.New(k)
	res, err := bench.Run(context.Background(), l.Open())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	due, sent := 30.0, s.Float("count", 0)
	if sent > 21 || sent < 5 || s.Float("late", 0) < 5 || s.Float("dropped", 0) < 9 || s.Float("count", 0)+s.Float("dropped", 0) > due {
		t.Errorf("sent %v late %v dropped %v of %v due\n%v", sent, s.Float("late", 0), s.Float("dropped", 0), due, s)
	}
	if u, c := s.Float("uncorrected_p99_ms", 0), s.Float("p99_ms", 0); u > c/2 || u < 100 {
		t.Errorf("uncorrected p99 %v, corrected %v; want the uncorrected near one wait, far under the corrected", u, c)
	}
	e := k.Estimate()
	if e.Float("sent", 2) != 20 || e.Float("dropped", 2) != 10 {
		t.Errorf("estimate\n%v", e)
	}
	if tr := l.ClientTrace(); len(tr.Where("phase", "queue").Rows()) < 5 {
		t.Errorf("client trace: %d late requests\n%v", len(tr.Where("phase", "queue").Rows()), tr)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k    byo.Knobs
		want string
	}{
		{byo.Knobs{N: -1}, "n must"},
		{byo.Knobs{N: 1, Wait: 0}, "wait"},
		{byo.Knobs{N: 1, Wait: 1, Rate: -3}, "rate"},
		{byo.Knobs{N: 1, Wait: 1, Rate: 1, Duration: 0}, "duration"},
		{byo.Knobs{N: 1, Wait: 1, Rate: 1, Duration: 1, InFlight: 0}, "inFlight"},
		{byo.Knobs{N: 1, Wait: 1, Rate: 1, Duration: 1, InFlight: 1, Path: "work"}, "yourPath"},
		{byo.Knobs{N: 1, Wait: 1, Rate: 1, Duration: 1, InFlight: 1, URL: "http://example.com"}, "loopback"},
	} {
		if err := c.k.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.k, err, c.want)
		}
	}
	// The product refuses the target itself, whatever the lesson checks.
	l := byo.New(byo.Knobs{Path: "/work", N: 1, Wait: time.Millisecond, Rate: 1, Duration: time.Second, InFlight: 1, URL: "http://10.1.2.3:80"})
	if _, err := bench.Run(context.Background(), l.Burst()); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a burst to 10.1.2.3: %v", err)
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	e := byo.Default.Estimate()
	if e.Float("waves", 0) != 1 || e.Float("waves", 1) != 10 || e.Float("elapsed_s", 1) != 5 {
		t.Errorf("burst\n%v", e)
	}
	// 3 a second for 5 s over one connection to a server doing 2 a second:
	// 10 sent, 5 dropped; the last waited 10/6 s, plus 0.5 s.
	if e.Float("sent", 2) != 10 || e.Float("dropped", 2) != 5 {
		t.Errorf("open\n%v", e)
	}
	if last := e.Float("last_ms", 2); last < 2166 || last > 2167 {
		t.Errorf("last %v ms; want 10/6 s + 0.5 s", last)
	}
	k := byo.Default
	k.InFlight = 20
	if last := k.Estimate().Float("last_ms", 2); last < 2999 || last > 3001 {
		t.Errorf("many connections: last %v ms; want 15/6 s + 0.5 s", last)
	}
}
