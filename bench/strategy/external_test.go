package strategy_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

func TestExternalValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url  string
		want string // "" means valid
	}{
		{"http://127.0.0.1:8000", ""},
		{"http://127.0.0.2:8000/api/", ""},
		{"https://[::1]:8443", ""},
		{"http://localhost:8000", ""},
		{"", "empty"},
		{"127.0.0.1:8000", "URL"},
		{"//127.0.0.1:8000", "http://"},
		{"ftp://127.0.0.1/", "http://"},
		{"http://example.com", "not a loopback host"},
		{"http://10.0.0.1:80", "not a loopback host"},
		{"http://0.0.0.0:8000", "not a loopback host"},
		{"http://127.0.0.1:8000/?q=1", "no query"},
		{"http://%zz", "invalid"},
	} {
		err := strategy.External{URL: c.url}.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("External{URL: %q}.Validate() = %v; want %q", c.url, err, c.want)
		}
	}
}

func TestExternalStart(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	defer ts.Close()
	var s strategy.Strategy = strategy.External{URL: ts.URL + "/"}
	if strategy.RunsWorkload(s) {
		t.Error("RunsWorkload(External) = true")
	}
	srv, err := s.Start(context.Background(), pymodel.Workload{}, strategy.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if srv.URL() != ts.URL {
		t.Errorf("URL() = %q; want %q (no trailing slash)", srv.URL(), ts.URL)
	}
	row := srv.Stats().Row()
	for _, c := range strategy.ServerColumns {
		if v, _ := row[c].(float64); !math.IsNaN(v) {
			t.Errorf("Stats().Row()[%q] = %v; want NaN", c, row[c])
		}
	}
	if tr, err := srv.Trace(); err != nil || len(tr.Events) != 0 {
		t.Errorf("Trace() = %d events, %v; want none", len(tr.Events), err)
	}
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
	// Closing leaves the user's server running.
	resp, err := http.Get(ts.URL + "/still")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String()
	ln.Close()
	if _, err := (strategy.External{URL: gone}).Start(context.Background(), pymodel.Workload{}, strategy.StartOptions{}); err == nil || !strings.Contains(err.Error(), "nothing answers") {
		t.Errorf("Start on a closed port = %v; want nothing answers", err)
	}
}

// A server the user runs, named by its loopback URL.
func ExampleExternal() {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello\n") }))
	defer ts.Close()
	s := strategy.External{Name: "my server", URL: ts.URL}
	srv, err := s.Start(context.Background(), pymodel.Workload{}, strategy.StartOptions{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	resp, err := http.Get(srv.URL() + "/")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(s.Label(), ": ", string(body))
	fmt.Println("cpu_s:", srv.Stats().Row()["cpu_s"])
	fmt.Println(strategy.External{URL: "http://example.com"}.Validate())
	// Output:
	// my server: hello
	// cpu_s: NaN
	// strategy "external http://example.com": URL "http://example.com": not a loopback host (127.0.0.0/8, ::1, localhost): the lab sends load only to this machine
}
