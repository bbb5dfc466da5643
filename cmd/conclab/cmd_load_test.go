package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/load"
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
		{"open rate", []string{"load", srv.URL, "--rate", "100", "-d", "500ms"}, []string{"open 100/s 500ms", "uncorrected", "http_reqs...................: 50 "}},
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
		{"huge c", []string{"load", srv.URL, "-c", "100000000", "-n", "1"}, 2, "VUs must be at most 100000"},
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

func TestLoadProgressBar(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	b := &progressBar{w: &buf}
	b.update(load.Progress{Elapsed: 5 * time.Second, Duration: 10 * time.Second, Done: 500, Errors: 2})
	b.clear()
	got := buf.String()
	for _, want := range []string{"[" + strings.Repeat("=", 15) + strings.Repeat("-", 15) + "]", "5.0s", "500 reqs", "2 errors", "100/s", "\r\033[K"} {
		if !strings.Contains(got, want) {
			t.Errorf("bar %q lacks %q", got, want)
		}
	}
	if isTerminal(&buf) {
		t.Errorf("a buffer is not a terminal")
	}
	if f, err := os.CreateTemp(t.TempDir(), "out"); err == nil {
		if isTerminal(f) {
			t.Errorf("a file is not a terminal")
		}
		f.Close()
	}
}
