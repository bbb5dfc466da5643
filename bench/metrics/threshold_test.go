package metrics

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseThreshold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		stat  stat
		q     float64
		op    string
		limit float64
	}{
		{"p95<200ms", statQuantile, 95, "<", float64(200 * time.Millisecond)},
		{"p(99.9) <= 1s", statQuantile, 99.9, "<=", float64(time.Second)},
		{" p99 < 250 ", statQuantile, 99, "<", float64(250 * time.Millisecond)},
		{"http_req_duration: p(95)<200", statQuantile, 95, "<", float64(200 * time.Millisecond)},
		{"med<500us", statMed, 0, "<", float64(500 * time.Microsecond)},
		{"avg<1.5ms", statAvg, 0, "<", float64(1500 * time.Microsecond)},
		{"min>=2µs", statMin, 0, ">=", float64(2 * time.Microsecond)},
		{"max<2s", statMax, 0, "<", float64(2 * time.Second)},
		{"errors<1%", statErrorRate, 0, "<", 0.01},
		{"errors<10", statErrors, 0, "<", 10},
		{"http_req_failed: rate<0.01", statErrorRate, 0, "<", 0.01},
		{"http_req_failed:rate<=5%", statErrorRate, 0, "<=", 0.05},
		{"rps>500", statRPS, 0, ">", 500},
		{"rps>=12.5/s", statRPS, 0, ">=", 12.5},
		{"http_reqs: rate>500", statRPS, 0, ">", 500},
		{"http_reqs: count>1000", statCount, 0, ">", 1000},
		{"count>=1000", statCount, 0, ">=", 1000},
		{"dropped<1", statDropped, 0, "<", 1},
		{"dropped_iterations: count<1", statDropped, 0, "<", 1},
	} {
		th, err := ParseThreshold(tc.in)
		if err != nil {
			t.Errorf("ParseThreshold(%q): %v", tc.in, err)
			continue
		}
		if th.stat != tc.stat || th.q != tc.q || th.op != tc.op || math.Abs(th.limit-tc.limit) > 1e-9 || th.String() != strings.TrimSpace(tc.in) {
			t.Errorf("ParseThreshold(%q) = %+v; want stat %d q %v op %s limit %v", tc.in, th, tc.stat, tc.q, tc.op, tc.limit)
		}
	}
}

func TestParseThresholdBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", "empty"},
		{"p95", "no operator"},
		{"p95<", "no value"},
		{"p95<<2", "one comparison"},
		{"p95=<2", "one comparison"},
		{"p95<fast", `latency "fast"`},
		{"p95<-2ms", "latency"},
		{"p95<2h", "0 to 1h0m0s"},
		{"p0<2ms", "percentile"},
		{"p101<2ms", "percentile"},
		{"p(95<2ms", "unclosed"},
		{"pNaN<2ms", "percentile"},
		{"errors<0.01", "a count is a whole number, got 0.01; for a rate write errors<1%"},
		{"errors<120%", "at most 100%"},
		{"errors<-1", "non-negative"},
		{"rps>NaN", "non-negative"},
		{"rps>Inf", "non-negative"},
		{"latency<2ms", `unknown statistic "latency"`},
		{"http_req_waiting: p95<1", `unknown metric "http_req_waiting"`},
		{"http_req_failed: p95<1", "http_req_failed takes rate"},
		{"http_reqs: p95<1", "http_reqs takes rate or count"},
		{"http_req_duration: rps>1", "http_req_duration takes"},
		{"count>1.5", "whole number"},
	} {
		_, err := ParseThreshold(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "threshold") {
			t.Errorf("ParseThreshold(%q) = %v; want an error naming it, containing %q", tc.in, err, tc.want)
		}
	}
	if _, err := ParseThresholds("p95<1s", "oops"); err == nil || !strings.Contains(err.Error(), `"oops"`) {
		t.Errorf("ParseThresholds: %v", err)
	}
}

// Any input parses or is an error naming it; never a panic, and a parsed
// threshold prints as written and checks any result.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"p95<200ms", "errors<1%", "http_reqs: rate>500", "p(99.9)<=1", "max<2s", "dropped<1", "p(", ":<", "errors<%"} {
		f.Add(s)
	}
	res := runOf(t0, time.Millisecond, 3*time.Millisecond)
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			if !strings.Contains(err.Error(), "threshold") {
				t.Errorf("error %q does not name the threshold", err)
			}
			return
		}
		if th.String() != strings.TrimSpace(s) {
			t.Errorf("String() = %q; want %q", th, strings.TrimSpace(s))
		}
		tr := th.Check(res)
		_ = tr.Measured()
		th.Doomed(&Cut{}, 10)
	})
}

// runOf is a result of one response per latency given.
func runOf(start time.Time, lat ...time.Duration) *Result {
	r, _ := NewRecorder(start, Options{})
	for i, d := range lat {
		r.Record(i, &Sample{Outcome: OK, Latency: d})
	}
	return r.Finish(start.Add(time.Second), 0, nil)
}

// Doomed is certain, never hopeful: a percentile or an error rate is
// doomed only when the requests still to come could not save it.
func TestThresholdDoomed(t *testing.T) {
	t.Parallel()
	// A run so far: 60 responses of 10 ms and 40 of 1 ms, 5 of them 500s,
	// then 3 connection errors.
	var cut *Cut
	r, _ := NewRecorder(t0, Options{OnCut: func(c *Cut) { cp := *c; cut = &cp }})
	for i := 0; i < 100; i++ {
		s := Sample{Outcome: OK, Latency: time.Millisecond}
		if i < 60 {
			s.Latency = 10 * time.Millisecond
		}
		if i < 5 {
			s.Outcome = Status5xx
		}
		r.Record(i, &s)
	}
	for i := 0; i < 3; i++ {
		r.Record(i, &Sample{Outcome: Conn})
	}
	r.Cut(t0.Add(time.Second), math.NaN())
	for _, tc := range []struct {
		threshold string
		most      int64
		doomed    bool
	}{
		{"p50<5ms", 0, false},     // unknown total: anything may follow
		{"p50<5ms", 100, true},    // 60 of 100 are 10 ms, and no more come
		{"p50<5ms", 119, true},    // rank 60 of 119: at best 19 instant ones below, the 41st of ours is 10 ms
		{"p50<5ms", 121, false},   // rank 61 of 121: 21 instant ones and our 40 of 1 ms reach it
		{"p50<=10ms", 100, false}, // 10 ms is within
		{"p40>5ms", 100, true},    // nothing more comes: rank 40 is a 1 ms one
		{"p40>5ms", 103, false},   // rank 41 of 103: ours, 10 ms, if the 3 to come are slow
		{"p39>5ms", 103, true},    // rank 40 of 103: ours, 1 ms, whatever comes
		{"p99<10ms", 1000, false}, // 10 ms samples lie in the 10 ms bucket: not certainly ≥ the limit
		{"p99<9ms", 1000, true},   // rank 990 of 1000: even after 900 instant ones, our 90th, 10 ms
		{"p99<9ms", 5900, true},   // rank 5841: 5800 instant ones leave our 41st, 10 ms
		{"p99<9ms", 6000, false},  // rank 5940: 5900 instant ones leave our 40th, 1 ms
		{"avg<1ms", 100, true},    // 610 ms over at most 100 responses
		{"avg<7ms", 100, false},   // 6.1 ms
		{"avg<7ms", 0, false},
		{"max<5ms", 0, true}, // a 10 ms one already
		{"max<20ms", 0, false},
		{"min>2ms", 0, true}, // a 1 ms one already
		{"min<2ms", 0, false},
		{"errors<8", 0, true}, // 5 + 3
		{"errors<=8", 0, false},
		{"errors<9", 0, false},
		{"errors<1%", 0, false},  // unknown total
		{"errors<1%", 500, true}, // 8 of at most 500 is 1.6 %
		{"errors<2%", 500, false},
		{"count<100", 0, true},   // 103 done
		{"count>200", 150, true}, // at most 150
		{"count>100", 150, false},
		{"rps>1e9", 150, false}, // rps is never certain
		{"dropped<1", 150, false},
	} {
		th, err := ParseThreshold(tc.threshold)
		if err != nil {
			t.Fatal(err)
		}
		if got := th.Doomed(cut, tc.most); got != tc.doomed {
			t.Errorf("%s with at most %d requests: Doomed = %v; want %v", tc.threshold, tc.most, got, tc.doomed)
		}
	}
}

// A check of every statistic against a known run.
func TestThresholdCheck(t *testing.T) {
	t.Parallel()
	r := runOf(t0, time.Millisecond, 2*time.Millisecond, 3*time.Millisecond, 4*time.Millisecond)
	for _, tc := range []struct {
		threshold string
		value     float64
		passed    bool
	}{
		{"p50<3ms", float64(2 * time.Millisecond), true},
		{"p100<=4ms", float64(4 * time.Millisecond), true},
		{"avg<2.5ms", float64(2500 * time.Microsecond), false},
		{"min>=1ms", float64(time.Millisecond), true},
		{"max<4ms", float64(4 * time.Millisecond), false},
		{"errors<1", 0, true},
		{"errors<1%", 0, true},
		{"rps>=4", 4, true},
		{"count>4", 4, false},
		{"dropped<1", 0, true},
	} {
		th, _ := ParseThreshold(tc.threshold)
		got := th.Check(r)
		if math.Abs(got.Value-tc.value) > float64(10*time.Microsecond) || got.Passed != tc.passed {
			t.Errorf("%s: value %v passed %v; want %v %v", tc.threshold, got.Value, got.Passed, tc.value, tc.passed)
		}
	}
	// No responses: latency thresholds fail, with nothing measured.
	empty, _ := NewRecorder(t0, Options{})
	e := empty.Finish(t0.Add(time.Second), 0, nil)
	for _, s := range []string{"p95<1s", "avg<1s", "errors<1%"} {
		th, _ := ParseThreshold(s)
		if got := th.Check(e); got.Passed || !math.IsNaN(got.Value) || !strings.Contains(got.Measured(), "none") {
			t.Errorf("%s on an empty run: %+v %q; want a failure with nothing measured", s, got, got.Measured())
		}
	}
}
