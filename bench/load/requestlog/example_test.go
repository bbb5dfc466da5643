package requestlog_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/load/requestlog"
)

// A run's raw results, one CSV row per request, written as the run goes.
func ExampleCreate() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "requests")
	defer os.RemoveAll(dir)

	out, err := requestlog.Create(filepath.Join(dir, "requests.csv"), requestlog.Options{})
	if err != nil {
		panic(err)
	}
	_, err = load.Run(context.Background(), load.Target{URL: srv.URL}, load.Closed{VUs: 2, Total: 10},
		load.Options{Requests: out.Write})
	if err != nil {
		panic(err)
	}
	if err := out.Close(); err != nil {
		panic(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "requests.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	fmt.Println(lines[0])
	fmt.Println(len(lines)-1, "rows, each", strings.Count(lines[1], ",")+1, "fields, status", strings.Split(lines[1], ",")[4])
	// Output:
	// intended_unix_ns,start_unix_ns,latency_ms,uncorrected_ms,status,outcome,bytes_in,bytes_out,error,worker,conn,segment
	// 10 rows, each 12 fields, status 200
}
