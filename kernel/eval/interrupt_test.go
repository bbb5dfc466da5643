package eval_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Interrupting a burst against a server whose handler is an interpreted
// closure holding a sync.Mutex (notebooks/byo-server.ipynb) must not leave
// the mutex locked: the re-run works. The handler is called from compiled
// net/http; the cell waits in compiled lab code (load.Run) watching
// cell.Context(). Not parallel: cell.Context() is the process's, and a
// parallel session's cell would see another's.
func TestInterruptBurstThenRerun(t *testing.T) {
	for _, unlock := range []string{"mu.Unlock()", "defer mu.Unlock()"} {
		t.Run(unlock, func(t *testing.T) {
			s, _, _ := newSession(t)
			handler := "mu.Lock()\n\ttime.Sleep(wait)\n\tmu.Unlock()\n\tfmt.Fprintln(w, \"ok\")"
			if strings.HasPrefix(unlock, "defer") {
				handler = "mu.Lock()\n\tdefer mu.Unlock()\n\ttime.Sleep(wait)\n\tfmt.Fprintln(w, \"ok\")"
			}
			mustEval(t, s, `import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/kernel/cell"
)
wait := 60 * time.Millisecond
var mu sync.Mutex
serialised := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	`+handler+`
})
func serve(ctx context.Context, h http.Handler) (*frame.Frame, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	r, err := load.Run(ctx, load.Target{URL: "http://" + ln.Addr().String() + "/work"}, load.Burst{N: 10}, load.Options{Strategy: "one at a time", Workload: "sleep"})
	if err != nil {
		return nil, err
	}
	return r.Summary(), nil
}`)
			burst := "b, err := serve(cell.Context(), serialised)\nif err != nil {\n\tpanic(err)\n}\nerrs := b.Float(\"errors\", 0)"
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			if _, err := s.Eval(ctx, burst); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("interrupted burst: err = %v; want the interrupt", err)
			}
			for run := 1; run <= 2; run++ {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				t0 := time.Now()
				_, err := s.Eval(ctx, burst)
				cancel()
				if err != nil {
					t.Fatalf("burst run %d after the interrupt: %v (after %v)", run, err, time.Since(t0))
				}
				if r := mustEval(t, s, "errs"); fmt.Sprint(r.Value) != "0" {
					t.Errorf("burst run %d after the interrupt: %v errors; want 0", run, r.Value)
				}
				// Ten serialised waits of 60 ms; a locked mutex would make the
				// burst wait for load's request timeout.
				if el := time.Since(t0); el > 10*time.Second {
					t.Errorf("burst run %d after the interrupt took %v", run, el)
				}
			}
		})
	}
}
