package s001

import (
	"context"
	"fmt"
	"strconv"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
)

// Bench runs the book's client (bench001.py) on this machine's CPython: n
// GETs of url at once from one httpx.AsyncClient, timing the whole batch.
// url is whole, e.g. srv.URL()+"/sync-sleep?s=0.2". Its row, recorded
// through bench/metrics (cpython.Client): strategy label, elapsed_s (the
// batch), the latency columns, and threads, the distinct server threads
// that answered — how many of the pool's the batch really used.
func Bench(ctx context.Context, o cpython.Options, label, url string, n int) (*frame.Frame, error) {
	if n <= 0 || n > 10000 {
		return nil, fmt.Errorf("s001: Bench: n must be in 1..10000, got %d", n)
	}
	return cpython.Client{
		Script: cpython.Script{Files: Files(), Name: "bench001.py", Args: []string{"--path", url, "--n", strconv.Itoa(n)},
			Requires: []string{"httpx"}},
		Label: label, Load: "burst " + strconv.Itoa(n),
	}.Run(ctx, o)
}
