package s003

import (
	"fmt"
	"strings"
	"testing"

	"github.com/conclab/conclab/bench/trace"
)

// burstsPerWorker takes the trace's last bursts x n requests in the order
// they started, in groups of n, and refuses a trace short of them or with
// a request beyond the server's workers.
func TestBurstsPerWorker(t *testing.T) {
	t.Parallel()
	ev := func(req int64, worker int, start int64) trace.Event {
		return trace.Event{Request: req, Worker: worker, Phase: trace.Handler, Start: start, End: start + 5}
	}
	evs := []trace.Event{
		{Request: 0, Worker: 1, Phase: trace.Accept, Start: 1, End: 2}, // the acceptor's: no request
		ev(7, 1, 5),                                            // before the bursts: a probe
		ev(1, 1, 12), ev(1, 1, 11), ev(2, 1, 15), ev(3, 2, 14), // burst 1
		ev(4, 2, 25), ev(5, 2, 26), ev(6, 2, 27), // burst 2
	}
	got, err := burstsPerWorker(evs, 2, 3, 2)
	if err != nil || fmt.Sprint(got) != "[[2 1] [0 3]]" {
		t.Errorf("burstsPerWorker = %v, %v; want [[2 1] [0 3]]", got, err)
	}
	if _, err := burstsPerWorker(evs, 3, 3, 2); err == nil || !strings.Contains(err.Error(), "want 3 bursts") {
		t.Errorf("short trace: %v", err)
	}
	if _, err := burstsPerWorker(evs, 2, 3, 1); err == nil || !strings.Contains(err.Error(), "worker 2 of 1") {
		t.Errorf("worker beyond the server's: %v", err)
	}
}
