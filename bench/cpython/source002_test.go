package cpython

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Source 002's four clients, model vs real: the batch time is waves x
// 200 ms, a wave being as many checks as run at once (1 for the sequential
// client, the pool's workers, all 100 for aiohttp). The real time lies
// within ±10 % of [arithmetic, arithmetic + the client's zero-wait time],
// the model's within ±10 % of the arithmetic. A miss gets one rerun.
func TestCompare002(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "requests", "aiohttp")
	if testing.Short() {
		t.Skip("real-process timing test")
	}
	const wait = 200 * time.Millisecond
	cases := Cases002(100)
	cases[0].N = 10 // the sequential client's 100 x 200 ms = 20 s, scaled to 2 s
	waves := []int{10, 1, 4, 1}
	ctx := context.Background()
	for i, c := range cases {
		name := Client002Label(c.Mode, c.Workers)
		retryOnce(t, name, func() (bool, string) {
			f, err := Compare002(ctx, Options{}, wait, []Case002{c})
			if err != nil {
				t.Fatal(err)
			}
			want := float64(waves[i]) * wait.Seconds()
			real, model, fixed := f.Float("real", 0), f.Float("model", 0), f.Float("fixed", 0)
			t.Logf("%-26s model %.3fs, real %.3fs (+ fixed %.3fs), arithmetic %.3fs; client CPU %.3fs, rss %.0f MB",
				name, model, real, fixed, want, f.Float("cpu_s", 0), f.Float("rss_mb", 0))
			switch {
			case !inBand(real, want, want+fixed, 0.10):
				return false, fmt.Sprintf("real %.3fs; want %.3fs..%.3fs ±10%%", real, want, want+fixed)
			case !inBand(model, want, want, 0.10):
				return false, fmt.Sprintf("model %.3fs; want %.3fs ±10%%", model, want)
			case f.Float("agree", 0) != 1:
				return false, f.Text("verdict", 0)
			}
			return true, ""
		})
	}
}
