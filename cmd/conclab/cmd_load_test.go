package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
)

func loadTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			if _, _, err := r.FormFile("img"); err != nil && r.ContentLength == 0 {
				http.Error(w, "no body", 400)
				return
			}
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestLoadCommand(t *testing.T) {
	t.Parallel()
	srv := loadTestServer(t)
	img := filepath.Join(t.TempDir(), "img.jpg")
	if err := os.WriteFile(img, bytes.Repeat([]byte{1}, 50_000), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"closed -n", []string{"load", srv.URL, "-c", "3", "-n", "30"}, []string{"http_req_duration", "http_reqs...................: 30 ", "0.00% 0 out of 30", "3 VUs 30 requests"}},
		{"flags before URL", []string{"load", "-c", "2", "-d", "300ms", srv.URL}, []string{"2 VUs 300ms", "p(95)="}},
		{"open rate", []string{"load", srv.URL, "--rate", "100", "-d", "500ms"}, []string{"open 100/s 500ms", "uncorrected", "http_reqs...................: "}},
		{"burst", []string{"load", srv.URL, "--burst", "-n", "5"}, []string{"burst 5", ": 5 "}},
		{"upload", []string{"load", srv.URL, "-n", "4", "--file", "img=" + img, "--phases"}, []string{"POST", "0.00% 0 out of 4", "http_req_waiting"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			if code := mainCode(tc.args, &out, &errb); code != 0 {
				t.Fatalf("exit %d; stderr: %s\nstdout: %s", code, errb.String(), out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if strings.Contains(out.String(), "\r") {
				t.Errorf("progress bar drawn although stdout is not a terminal")
			}
		})
	}
}

func TestLoadCommandJSON(t *testing.T) {
	t.Parallel()
	srv := loadTestServer(t)
	var out, errb bytes.Buffer
	code := mainCode([]string{"load", srv.URL, "-c", "2", "-n", "20", "--json", "--label", "machine=ci", "--strategy", "goroutines"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Summary struct {
			Columns []struct{ Name, Kind string }
			Rows    [][]any
		}
		Series, Distribution map[string]any
		Warnings             []string
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out.String())
	}
	row := map[string]any{}
	for i, c := range doc.Summary.Columns {
		row[c.Name] = doc.Summary.Rows[0][i]
	}
	if row["count"] != 20.0 || row["strategy"] != "goroutines" || row["machine"] != "ci" || row["load"] != "2 VUs 20 requests" {
		t.Errorf("summary row = %v", row)
	}
	if doc.Series == nil || doc.Distribution == nil || doc.Warnings == nil {
		t.Errorf("missing series, distribution or warnings: %s", out.String())
	}
}

func TestLoadCommandBadInput(t *testing.T) {
	t.Parallel()
	srv := loadTestServer(t)
	refused := httptest.NewServer(http.NotFoundHandler())
	deadURL := refused.URL
	refused.Close()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no URL", []string{"load"}, 2, "no target URL"},
		{"unknown flag", []string{"load", srv.URL, "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{"malformed URL", []string{"load", "http://[::1", "-n", "1"}, 2, "malformed target URL"},
		{"zero c", []string{"load", srv.URL, "-c", "0"}, 2, "-c must be positive"},
		{"huge c", []string{"load", srv.URL, "-c", "100000000", "-n", "1"}, 2, "above the cap of 100000 connections"},
		{"port out of range", []string{"load", "http://127.0.0.1:99999/", "-n", "1"}, 2, "port 99999 is not in 1..65535"},
		{"port zero", []string{"load", "http://127.0.0.1:0/", "-n", "1"}, 2, "port 0 is not in 1..65535"},
		{"duration above the cap", []string{"load", srv.URL, "-d", "100000h"}, 2, "above the longest run allowed, --max-duration 10m0s"},
		{"max-duration above 24h", []string{"load", srv.URL, "--max-duration", "25h"}, 2, "--max-duration must be in"},
		{"default duration above max-duration", []string{"load", srv.URL, "--max-duration", "5s"}, 2, "the default duration -d 10s is above --max-duration 5s"},
		{"default duration of a rate above max-duration", []string{"load", srv.URL, "--rate", "10", "--max-duration", "5s"}, 2, "above --max-duration 5s"},
		{"long run with max-duration", []string{"load", srv.URL, "-d", "2h", "--max-duration", "1h"}, 2, "--max-duration 1h0m0s"},
		{"absurd rate", []string{"load", srv.URL, "--rate", "1e12", "-d", "1s"}, 2, "above the cap of 1e+07 requests/s"},
		{"rate times duration", []string{"load", srv.URL, "--rate", "1e6", "-d", "10m"}, 2, "plans 600000000 requests"},
		{"rate -n beyond max-duration", []string{"load", srv.URL, "--rate", "1", "-n", "1000"}, 2, "above --max-duration"},
		{"timeout above the cap", []string{"load", srv.URL, "--timeout", "2h"}, 2, "--timeout 2h0m0s is above the cap"},
		{"grace above the cap", []string{"load", srv.URL, "--grace", "1h"}, 2, "--grace must be in"},
		{"zero iterations", []string{"load", srv.URL, "--iterations", "0"}, 2, "--iterations must be positive"},
		{"iterations with rate", []string{"load", srv.URL, "--iterations", "3", "--rate", "10"}, 2, "--iterations applies to the closed model"},
		{"bad segment", []string{"load", srv.URL, "--segment", "3/3"}, 2, "--segment: split: segment index must be in 0..2"},
		{"bad segment form", []string{"load", srv.URL, "--segment", "half"}, 2, "want i/N"},
		{"bad start-at", []string{"load", srv.URL, "--start-at", "soon"}, 2, "--start-at \"soon\": want an RFC 3339 time"},
		{"start-at too far", []string{"load", srv.URL, "--start-at", "2099-01-01T00:00:00Z"}, 2, "more than 24h0m0s"},
		{"hlog in missing dir", []string{"load", srv.URL, "-n", "1", "--hlog", "/no/such/dir/r.hlog"}, 2, "--hlog /no/such/dir/r.hlog"},
		{"negative c", []string{"load", srv.URL, "-c", "-4"}, 2, "-c must be positive"},
		{"zero d", []string{"load", srv.URL, "-d", "0s"}, 2, "-d must be positive"},
		{"negative d", []string{"load", srv.URL, "-d", "-1s"}, 2, "-d must be positive"},
		{"zero n", []string{"load", srv.URL, "-n", "0"}, 2, "-n must be positive"},
		{"negative rate", []string{"load", srv.URL, "--rate", "-3"}, 2, "--rate must be a positive"},
		{"bad duration", []string{"load", srv.URL, "-d", "soon"}, 2, "invalid value \"soon\""},
		{"missing file", []string{"load", srv.URL, "--file", "img=/no/such.jpg"}, 2, "no such file"},
		{"bad file spec", []string{"load", srv.URL, "--file", "img"}, 2, "want FIELD=PATH"},
		{"missing body", []string{"load", srv.URL, "--body", "/no/such/body"}, 2, "--body"},
		{"remote", []string{"load", "http://192.0.2.7/", "-n", "1"}, 2, "not loopback"},
		{"two URLs", []string{"load", srv.URL, srv.URL}, 2, "one URL only"},
		{"burst without n", []string{"load", srv.URL, "--burst"}, 2, "--burst needs -n"},
		{"html in missing dir", []string{"load", srv.URL, "-n", "1", "--html", "/no/such/dir/r.html"}, 2, "--html /no/such/dir/r.html"},
		{"refused", []string{"load", deadURL, "-n", "3"}, 1, "connection refused"},
		{"bad threshold", []string{"load", srv.URL, "-n", "1", "--threshold", "p95"}, 2, `--threshold: metrics: threshold "p95": no operator`},
		{"threshold count", []string{"load", srv.URL, "-n", "1", "--threshold", "errors<0.5"}, 2, "for a rate write errors<1%"},
		{"abort without threshold", []string{"load", srv.URL, "-n", "1", "--abort-on-fail"}, 2, "--abort-on-fail needs --threshold"},
		{"bad stage", []string{"load", srv.URL, "--stage", "30s"}, 2, `--stage: load: stage "30s": want DURATION:TARGET`},
		{"stage with -d", []string{"load", srv.URL, "--stage", "1s:5", "-d", "1s"}, 2, "--stage sets the run's length"},
		{"stage with -n", []string{"load", srv.URL, "--stage", "1s:5", "-n", "9"}, 2, "--stage sets the run's length"},
		{"stages too long", []string{"load", srv.URL, "--stage", "8m:5", "--stage", "3m:0"}, 2, "the stages last 11m0s, above --max-duration 10m0s"},
		{"stage above the cap", []string{"load", srv.URL, "--stage", "1s:200000"}, 2, "target must be at most 100000"},
		{"rate stage above the cap", []string{"load", srv.URL, "--rate", "0", "--stage", "1s:1e9"}, 2, "target must be at most 1e+07"},
		{"zero rate without stages", []string{"load", srv.URL, "--rate", "0"}, 2, "--rate must be a positive number"},
		{"streams without http2", []string{"load", srv.URL, "--streams", "4"}, 2, "--streams needs --http2"},
		{"too many streams", []string{"load", srv.URL, "--http2", "--streams", "5000"}, 2, "--streams must be in 1..1000"},
		{"new-conn with http2", []string{"load", srv.URL, "--http2", "--new-conn"}, 2, "--new-conn applies to HTTP/1.1"},
		{"out extension", []string{"load", srv.URL, "-n", "1", "--out", "r.txt"}, 2, "--out r.txt: want a .csv file"},
		{"out in missing dir", []string{"load", srv.URL, "-n", "1", "--out", "/no/such/dir/r.csv"}, 2, "--out /no/such/dir/r.csv"},
		{"missing cacert", []string{"load", srv.URL, "-n", "1", "--cacert", "/no/such.pem"}, 2, "--cacert"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := mainCode(tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errb.String(), tc.code, tc.want)
			}
		})
	}
}

func TestLoadCommandHTML(t *testing.T) {
	t.Parallel()
	srv := loadTestServer(t)
	out := filepath.Join(t.TempDir(), "report.html")
	var stdout, stderr bytes.Buffer
	if code := mainCode([]string{"load", srv.URL, "-c", "2", "-d", "300ms", "--html", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<!DOCTYPE html>", "conclab load " + srv.URL, "2 VUs 300ms", "http_req_duration", "<table", "data-conclab-chart"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// The live view: on a terminal a panel redrawn in place and cleared at
// the end; otherwise plain lines, at most one a second of the run.
func TestLoadLiveView(t *testing.T) {
	t.Parallel()
	plan := load.Plan{Duration: 10 * time.Second, Gauge: "vus", Protocol: "HTTP/1.1", Interval: 500 * time.Millisecond,
		Labels: map[string]string{"load": "50 VUs 10s"}}
	feed := func(v *liveView) {
		v.start(plan)
		rec, err := metrics.NewRecorder(time.Unix(0, 0), metrics.Options{OnCut: v.interval})
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= 6; k++ { // six intervals of 500 ms, k×100 requests of k ms
			for i := 0; i < 100*k; i++ {
				rec.Record(i, &metrics.Sample{Outcome: metrics.OK, Latency: time.Duration(k) * time.Millisecond})
			}
			rec.Record(0, &metrics.Sample{Outcome: metrics.Status5xx, Latency: time.Millisecond})
			rec.Cut(time.Unix(0, 0).Add(time.Duration(k)*500*time.Millisecond), 50)
			done := int64(50*k*(k+1) + k) // 100+200+...+100k requests and k errors so far
			v.progress(load.Progress{Elapsed: time.Duration(k) * 500 * time.Millisecond, Duration: 10 * time.Second, Level: 50, Done: done, Errors: int64(k)})
		}
		v.clear()
	}
	var tty bytes.Buffer
	v := &liveView{w: &tty, tty: true, title: "GET http://127.0.0.1/"}
	feed(v)
	got := tty.String()
	for _, want := range []string{"[" + strings.Repeat("=", 9) + strings.Repeat("-", 21) + "]", "3.0s / 10s", "vus 50", "HTTP/1.1",
		"rps      1202", "▂▃▅▆▇█", "p50 6.00ms", "p99 6.00ms", "requests 2106   errors 6 (0.28%)", "\033[4A\r\033[J"} {
		if !strings.Contains(got, want) {
			t.Errorf("panel lacks %q:\n%q", want, got)
		}
	}
	if !strings.HasSuffix(got, "\033[4A\r\033[J") {
		t.Errorf("panel not cleared at the end: %q", got[max(0, len(got)-40):])
	}

	var plain bytes.Buffer
	feed(&liveView{w: &plain, title: "GET http://127.0.0.1/"})
	lines := strings.Split(strings.TrimSpace(plain.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "50 VUs 10s · HTTP/1.1") || strings.Contains(plain.String(), "\033") {
		t.Fatalf("plain view: %q; want a heading and a line each second, no escapes", lines)
	}
	// Seconds 0–1: 100+200 requests and 2 errors in 1 s.
	for _, want := range []string{"t=1.0s  rps=302  p50=2.00ms", "errors=2  requests=302  vus=50"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("first line %q lacks %q", lines[1], want)
		}
	}
	if isTerminal(&plain) {
		t.Errorf("a buffer is not a terminal")
	}
	if f, err := os.CreateTemp(t.TempDir(), "out"); err == nil {
		if isTerminal(f) {
			t.Errorf("a file is not a terminal")
		}
		f.Close()
	}
	if sparkline([]float64{0, 1, 2, 4, 8}) != "▁▂▃▅█" {
		t.Errorf("sparkline = %q", sparkline([]float64{0, 1, 2, 4, 8}))
	}
}

// --segment, --start-at, --hlog and --iterations: two agents' logs merge
// into the whole run's count; conclab merge prints, writes JSON and HTML.
func TestLoadSegmentsAndMerge(t *testing.T) {
	t.Parallel()
	srv := loadTestServer(t)
	dir := t.TempDir()
	start := time.Now().Add(500 * time.Millisecond)
	at := fmt.Sprintf("%.3f", float64(start.UnixNano())/1e9)
	done := make(chan error, 2)
	for k := 0; k < 2; k++ {
		go func() {
			var out, errb bytes.Buffer
			code := mainCode([]string{"load", srv.URL, "-c", "3", "--iterations", "7", "--segment", fmt.Sprintf("%d/2", k),
				"--start-at", at, "--hlog", filepath.Join(dir, fmt.Sprintf("seg%d.hlog", k)), "-q"}, &out, &errb)
			if code != 0 {
				done <- fmt.Errorf("agent %d: exit %d: %s", k, code, errb.String())
				return
			}
			if want := fmt.Sprintf("3 VUs 7 iterations segment %d/2", k); !strings.Contains(out.String(), want) {
				done <- fmt.Errorf("agent %d: output lacks %q:\n%s", k, want, out.String())
				return
			}
			done <- nil
		}()
	}
	for i := 0; i < 2; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if time.Now().Before(start) {
		t.Errorf("agents ended before --start-at")
	}
	logs := []string{filepath.Join(dir, "seg0.hlog"), filepath.Join(dir, "seg1.hlog")}
	var out, errb bytes.Buffer
	if code := mainCode(append([]string{"merge", "--json"}, logs...), &out, &errb); code != 0 {
		t.Fatalf("merge exit %d: %s", code, errb.String())
	}
	var doc struct {
		Summary struct {
			Columns []struct{ Name string }
			Rows    [][]any
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	row := map[string]any{}
	for i, c := range doc.Summary.Columns {
		row[c.Name] = doc.Summary.Rows[0][i]
	}
	if row["count"] != 21.0 || row["errors"] != 0.0 || row["load"] != "3 VUs 7 iterations" {
		t.Errorf("merged summary %v; want 21 requests of the whole 3 VUs 7 iterations", row)
	}
	html := filepath.Join(dir, "merged.html")
	out.Reset()
	if code := mainCode([]string{"merge", logs[0], "--html", html, logs[1], "--wait", "5s"}, &out, &errb); code != 0 {
		t.Fatalf("merge --html exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "http_reqs...................: 21 ") || !strings.Contains(out.String(), "merged 2 logs") {
		t.Errorf("merge text output:\n%s", out.String())
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "data-conclab-chart") {
		t.Errorf("merge --html: %v", err)
	}
	// Thresholds on the merged result: the whole run's 21 requests.
	for _, tc := range []struct {
		threshold string
		code      int
	}{{"count>=21", 0}, {"count>21", 99}} {
		out.Reset()
		errb.Reset()
		if code := mainCode([]string{"merge", "--threshold", tc.threshold, logs[0], logs[1]}, &out, &errb); code != tc.code {
			t.Errorf("merge --threshold %s: exit %d; want %d (%s)", tc.threshold, code, tc.code, errb.String())
		}
	}
	if !strings.Contains(errb.String(), "count>21 (count=21)") {
		t.Errorf("merge does not name the failed threshold: %q", errb.String())
	}
}

func TestMergeBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.hlog")
	os.WriteFile(junk, []byte("not a log\n"), 0o644)
	running := filepath.Join(dir, "running.hlog")
	os.WriteFile(running, []byte("#[StartTime: 1764579600.000 (seconds since epoch)]\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"merge"}, 2, "no log files"},
		{[]string{"merge", "/no/such.hlog"}, 2, "no such file"},
		{[]string{"merge", junk}, 2, "want StartTimestamp"},
		{[]string{"merge", running, "--wait", "-1s"}, 2, "--wait must be in"},
		{[]string{"merge", running, "--html", "/no/such/dir/x.html"}, 2, "--html"},
		{[]string{"merge", filepath.Join(dir, "missing.hlog"), "--wait", "600ms"}, 1, "no log at"},
		{[]string{"merge", running}, 1, "no requests"},
		{[]string{"merge", running, "--threshold", "p95<<1"}, 2, "--threshold"},
	} {
		var out, errb bytes.Buffer
		code := mainCode(tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
	// An incomplete log is waited for, then merged as it is, with a note.
	var out, errb bytes.Buffer
	t0 := time.Now()
	mainCode([]string{"merge", running, "--wait", "700ms"}, &out, &errb)
	if d := time.Since(t0); d < 700*time.Millisecond || d > 10*time.Second || !strings.Contains(errb.String(), "still incomplete") {
		t.Errorf("--wait on an incomplete log: %v, stderr %q", d, errb.String())
	}
}

// slowServer answers after d, with a 500 to every request when failing.
func slowServer(t *testing.T, d time.Duration, failing bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(d)
		if failing {
			http.Error(w, "no", 500)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A failing threshold exits 99 and names it; passing ones exit 0; with
// --abort-on-fail a doomed run stops early, and still exits 99.
func TestLoadThresholdsExit(t *testing.T) {
	t.Parallel()
	slow := slowServer(t, 20*time.Millisecond, false)
	failing := slowServer(t, time.Millisecond, true)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"fails", []string{"load", slow.URL, "-c", "4", "-n", "40", "--threshold", "p95<5ms", "--threshold", "p95<2s"}, 99,
			[]string{"thresholds..................: 1 of 2 FAILED", "✗ p95<5ms", "✓ p95<2s"}, "1 of 2 thresholds failed: p95<5ms (p(95)="},
		{"passes", []string{"load", slow.URL, "-c", "4", "-n", "40", "--threshold", "p95<2s", "--threshold", "errors<1%"}, 0,
			[]string{"thresholds..................: all passed"}, ""},
		{"aborts", []string{"load", failing.URL, "-c", "2", "-n", "5000", "--threshold", "errors<3", "--abort-on-fail"}, 99,
			[]string{"stopped the run: certain to fail", "WARN stopped early: threshold errors<3 is certain to fail"}, "errors<3 (errors="},
		{"json", []string{"load", slow.URL, "-c", "2", "-n", "10", "--threshold", "p99<1ms", "--json"}, 99,
			[]string{`"thresholds": {`, `"name": "thresholds_failed"`}, "p99<1ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := mainCode(tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q\n%s", code, errb.String(), tc.code, tc.stderr, out.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// --stage ramps: the series shows each held stage's level; an open ramp
// (--rate 0 --stage) sends (or drops) exactly its integral.
func TestLoadStages(t *testing.T) {
	t.Parallel()
	srv := loadTestServer(t)
	series := func(args ...string) (map[string]float64, []map[string]any) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := mainCode(append([]string{"load", srv.URL, "--json"}, args...), &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var doc struct {
			Summary, Series struct {
				Columns []struct{ Name string }
				Rows    [][]any
			}
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		sum := map[string]float64{}
		for i, c := range doc.Summary.Columns {
			if v, ok := doc.Summary.Rows[0][i].(float64); ok {
				sum[c.Name] = v
			}
		}
		var rows []map[string]any
		for _, r := range doc.Series.Rows {
			row := map[string]any{}
			for i, c := range doc.Series.Columns {
				row[c.Name] = r[i]
			}
			rows = append(rows, row)
		}
		return sum, rows
	}
	sum, rows := series("--stage", "200ms:3", "--stage", "800ms:3", "--think", "10ms")
	held := 0
	for _, r := range rows {
		end := r["t_s"].(float64) + r["interval_s"].(float64)
		if end >= 0.3 && end <= 0.9 {
			held++
			if r["vus"] != 3.0 {
				t.Errorf("row ending at %.2fs: vus %v; want the held 3", end, r["vus"])
			}
		}
	}
	if held == 0 || sum["count"] == 0 {
		t.Errorf("no row in the held stage, or no request: %v", rows)
	}
	sum, _ = series("--rate", "0", "--stage", "300ms:100", "--stage", "300ms:100")
	if sum["count"]+sum["dropped"] != 45 {
		t.Errorf("open ramp: %v sent + %v dropped; want 15 + 30 = 45 arrivals", sum["count"], sum["dropped"])
	}
}

// --http2 against an h2c server says h2c and counts the connections;
// --out writes a row per request.
func TestLoadHTTP2AndOut(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			http.Error(w, "want HTTP/2", 400)
		}
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	csvPath := filepath.Join(t.TempDir(), "requests.csv")
	var out, errb bytes.Buffer
	if code := mainCode([]string{"load", srv.URL, "--http2", "-c", "6", "--streams", "3", "-n", "120", "--out", csvPath}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, w := range []string{"protocol: h2c · 2 connections · 120 streams", "0.00% 0 out of 120"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("summary lacks %q:\n%s", w, out.String())
		}
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 121 || !strings.HasPrefix(lines[0], "intended_unix_ns,") || strings.Count(string(b), ",200,ok,") != 120 {
		t.Errorf("--out: %d lines; want a header and 120 rows of 200s:\n%s", len(lines), strings.Join(lines[:min(3, len(lines))], "\n"))
	}
	// A run that never starts leaves no file behind.
	bad := filepath.Join(t.TempDir(), "r.csv")
	if code := mainCode([]string{"load", "http://192.0.2.1/", "-n", "1", "--out", bad}, &out, &errb); code != 2 {
		t.Errorf("exit %d", code)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Errorf("--out file left behind by a run that never started")
	}
}
