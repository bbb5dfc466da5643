package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// failingServer answers after d, with a 500 to every k-th request (k 0:
// never) and a 200 to the others.
func failingServer(t *testing.T, d time.Duration, k int64) *httptest.Server {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(d)
		if k > 0 && n.Add(1)%k == 0 {
			http.Error(w, "nope", http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Thresholds pass or fail on what the server does: a 20 ms server passes
// p95<1s and fails p95<5ms; every 10th request failing passes errors<20%
// and fails errors<5% and errors<3.
func TestThresholds(t *testing.T) {
	t.Parallel()
	srv := failingServer(t, 20*time.Millisecond, 10)
	res, err := Run(context.Background(), Target{URL: srv.URL}, Closed{VUs: 5, Total: 100},
		Options{Thresholds: []string{"p95<1s", "p95<5ms", "errors<20%", "errors<5%", "errors<3", "count>=100", "http_req_duration: p(50) > 19"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"p95<1s": true, "p95<5ms": false, "errors<20%": true, "errors<5%": false, "errors<3": false,
		"count>=100": true, "http_req_duration: p(50) > 19": true}
	if len(res.Thresholds) != len(want) {
		t.Fatalf("%d thresholds checked; want %d", len(res.Thresholds), len(want))
	}
	for _, tr := range res.Thresholds {
		if tr.Passed != want[tr.Threshold.String()] || tr.Aborted {
			t.Errorf("%s: passed %v (%s), aborted %v; want passed %v", tr.Threshold, tr.Passed, tr.Measured(), tr.Aborted, want[tr.Threshold.String()])
		}
	}
	if res.Passed() || len(res.FailedThresholds()) != 3 {
		t.Errorf("Passed %v, %d failed; want false, 3", res.Passed(), len(res.FailedThresholds()))
	}
	sum := res.Summary()
	if sum.Float("thresholds", 0) != 7 || sum.Float("thresholds_failed", 0) != 3 {
		t.Errorf("summary thresholds %v failed %v; want 7 and 3", sum.Float("thresholds", 0), sum.Float("thresholds_failed", 0))
	}
	if s := res.String(); !strings.Contains(s, "3 of 7 FAILED") || !strings.Contains(s, "✗ p95<5ms") || !strings.Contains(s, "✓ p95<1s") {
		t.Errorf("text summary lacks the verdicts:\n%s", s)
	}
	f := res.ThresholdFrame()
	if f.Len() != 7 || f.Text("threshold", 3) != "errors<5%" || f.Float("passed", 3) != 0 || f.Float("value", 3) != 10 {
		t.Errorf("threshold frame:\n%v", f)
	}
}

// With AbortOnFail a run stops once a threshold is certain to fail: after
// 3 errors for errors<3 (whatever the rest do), and for p50<5ms against a
// 20 ms server after the 101st response of 200 planned (no 99 instant
// responses could bring the median under 5 ms). A threshold that can
// still pass does not stop the run.
func TestAbortOnFail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		server    *httptest.Server
		threshold string
		least     int64 // the run cannot be certain before this many
		total     int
	}{
		{"errors count", failingServer(t, 2*time.Millisecond, 1), "errors<3", 3, 2000},
		{"median", failingServer(t, 20*time.Millisecond, 0), "p50<5ms", 101, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(context.Background(), Target{URL: tc.server.URL}, Closed{VUs: 4, Total: tc.total},
				Options{Thresholds: []string{"p99<1h", tc.threshold}, AbortOnFail: true, Interval: 20 * time.Millisecond})
			if err != nil && !strings.Contains(err.Error(), "all") {
				t.Fatal(err)
			}
			if n := res.Count(); n < tc.least || n >= int64(tc.total) {
				t.Errorf("%d requests; want the run stopped early, after at least %d", n, tc.least)
			}
			tr := res.Thresholds[1]
			if tr.Passed || !tr.Aborted || res.Thresholds[0].Aborted {
				t.Errorf("thresholds %+v; want %s failed and marked as the abort", res.Thresholds, tc.threshold)
			}
			if !hasWarning(res, "threshold "+tc.threshold+" is certain to fail") {
				t.Errorf("warnings %q", res.Warnings)
			}
		})
	}
	srv := failingServer(t, 0, 0)
	res, err := Run(context.Background(), Target{URL: srv.URL}, Closed{VUs: 2, Total: 300},
		Options{Thresholds: []string{"p99<1h", "errors<1"}, AbortOnFail: true, Interval: 10 * time.Millisecond})
	if err != nil || res.Count() != 300 || !res.Passed() {
		t.Errorf("passing run: err %v, %d requests, passed %v; want all 300 and a pass", err, res.Count(), res.Passed())
	}
	if _, err := Run(context.Background(), Target{URL: srv.URL}, Burst{N: 1}, Options{Thresholds: []string{"p95<"}}); err == nil || !strings.Contains(err.Error(), "no value") {
		t.Errorf("a malformed threshold: %v", err)
	}
}
