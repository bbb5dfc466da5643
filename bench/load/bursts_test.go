package load_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/load"
)

// Bursts sends its bursts one after another: every request of a burst is
// in flight together, and none of the next burst starts before the last
// of the previous one ended (the server sees at most N at once, and N
// exactly in each burst).
func TestBursts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	in, most := 0, 0
	var ends, starts []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		in++
		most = max(most, in)
		starts = append(starts, time.Now())
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		in--
		ends = append(ends, time.Now())
		mu.Unlock()
	}))
	defer srv.Close()
	res, err := load.Run(context.Background(), load.Target{URL: srv.URL}, load.Bursts{N: 4, Count: 3, Pause: 30 * time.Millisecond}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count() != 12 || res.Errors() != 0 {
		t.Fatalf("count %d errors %d; want 12, 0", res.Count(), res.Errors())
	}
	if most != 4 {
		t.Errorf("%d requests at once at most; want 4 (a burst)", most)
	}
	// The k-th start of burst b+1 comes after every end of burst b.
	for b := 1; b < 3; b++ {
		for _, s := range starts[4*b : 4*b+4] {
			for _, e := range ends[4*(b-1) : 4*b] {
				if s.Before(e) {
					t.Errorf("burst %d started a request before burst %d ended", b+1, b)
				}
			}
		}
	}
	if got := (load.Bursts{N: 4, Count: 3, Pause: time.Second}).String(); got != "3 bursts of 4, 1s apart" {
		t.Errorf("String() = %q", got)
	}
}

func TestBurstsBadInput(t *testing.T) {
	t.Parallel()
	for _, m := range []load.Bursts{{N: 0, Count: 1}, {N: 1, Count: 0}, {N: 1, Count: 1, Pause: -time.Second}} {
		_, err := load.Run(context.Background(), load.Target{URL: "http://127.0.0.1:1"}, m, load.Options{})
		if err == nil || !strings.Contains(err.Error(), "Bursts.") {
			t.Errorf("%+v: %v; want the field named", m, err)
		}
	}
}
