package cpython

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Source 000's print recap: a write(2) per printed line on the event loop
// costs more than one buffered write, which costs about as much as none.
func TestSource000Print(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	if testing.Short() {
		t.Skip("real-process timing test")
	}
	srv := startServer(t, App000Print(5000))
	ctx := context.Background()
	retryOnce(t, "print ordering", func() (bool, string) {
		avg := map[string]float64{}
		for _, p := range []string{DoPrint, DoPrintAsync, DontPrint} {
			f, err := ClosedVUs(ctx, p, Get(srv.URL()+p), 10, 1500*time.Millisecond, 0)
			if err != nil {
				t.Fatal(err)
			}
			if f.Float("errors", 0) != 0 {
				return false, fmt.Sprintf("%s: errors: %s", p, f.Text("first_error", 0))
			}
			avg[p] = f.Float("avg_ms", 0)
			t.Logf("%-13s avg %.2f ms, %.0f req/s", p, avg[p], f.Float("rps", 0))
		}
		// doPrintAsync and dontPrint can be close (one write per batch is
		// cheap); the per-line write(2) must cost clearly more than both.
		if !(avg[DoPrint] > avg[DoPrintAsync] && avg[DoPrint] > avg[DontPrint] && avg[DontPrint] <= 1.05*avg[DoPrintAsync]) {
			return false, fmt.Sprintf("avg latencies %v; want doPrint > doPrintAsync >= dontPrint", avg)
		}
		return true, ""
	})
}

// The model and real CPython agree on source 000's print finding: /doPrint
// is the slowest endpoint, the others faster.
func TestCompare000Print(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	if testing.Short() {
		t.Skip("real-process timing test")
	}
	retryOnce(t, "compare 000 print", func() (bool, string) {
		a, err := Compare000Print(context.Background(), Options{}, 2000, 10, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < a.Len(); i++ {
			t.Logf("%-13s %-6s model %8.2f real %8.2f: %s", a.Text("strategy", i), a.Text("metric", i), a.Float("model", i), a.Float("real", i), a.Text("verdict", i))
		}
		if a.Len() != 6 || !AllAgree(a) {
			return false, "model and real disagree on the slowest endpoint"
		}
		return true, ""
	})
}

// Bad input is refused before any Python starts.
func TestPrint000BadInput(t *testing.T) {
	if _, err := PrintMode000("/nope"); err == nil || !strings.Contains(err.Error(), "/doPrint") {
		t.Fatalf("PrintMode000 of an unknown endpoint: %v; want an error listing the endpoints", err)
	}
	for _, tc := range []struct {
		lines, vus int
		d          time.Duration
		want       string
	}{{0, 1, time.Second, "lines"}, {10, 0, time.Second, "vus"}, {10, 1, 0, "duration"}} {
		_, err := Compare000Print(context.Background(), Options{Python: "/no/such/python"}, tc.lines, tc.vus, tc.d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compare000Print(%d, %d, %v): %v; want an error about %s", tc.lines, tc.vus, tc.d, err, tc.want)
		}
	}
}
