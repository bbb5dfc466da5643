package cpython

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// Source 004: 26 posts from each client to each app. Clients that do not
// overlap requests (the sync loop, and async defs around requests) take
// 26 x the insert's wait and leave the rows in order A..Z; the aiohttp
// client overlaps them and takes a fraction of that, and on the sync app
// the shuffled rows show it. On SQLite always, and on MySQL/MariaDB when CONCLAB_MYSQL_DSN is
// set (as scripts/test.sh does).
func TestSource004(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "requests", "aiohttp", "pymysql", "aiomysql")
	if testing.Short() {
		t.Skip("real-process timing test")
	}
	const delay = 30 * time.Millisecond
	dbs := []*DB{{}}
	if dsn := os.Getenv("CONCLAB_MYSQL_DSN"); dsn != "" {
		dbs = append(dbs, &DB{MySQLDSN: dsn})
	} else {
		t.Log("CONCLAB_MYSQL_DSN not set: SQLite only")
	}
	ctx := context.Background()
	for _, db := range dbs {
		for _, async := range []bool{false, true} {
			srv := startServer(t, App004(async, db, delay))
			var seqElapsed float64
			for _, mode := range []string{SyncClient, FakeAsyncClient, AiohttpClient} {
				name := fmt.Sprintf("%s/%s/%s", db.Kind(), srv.Name(), Client004Label(mode))
				retryOnce(t, name, func() (bool, string) {
					f, err := Client004(ctx, Options{}, srv.URL(), mode, 26)
					if err != nil {
						t.Fatal(err)
					}
					el := f.Float("elapsed_s", 0)
					t.Logf("%-40s %.3fs, rows %s", name, el, f.Text("order", 0))
					if f.Float("errors", 0) != 0 || f.Float("rows", 0) != 26 {
						return false, fmt.Sprintf("errors %v, rows %v; want 0 and 26", f.Float("errors", 0), f.Float("rows", 0))
					}
					inOrder := f.Float("in_order", 0) == 1
					if mode != AiohttpClient {
						want := 26 * delay.Seconds()
						if !inOrder {
							return false, "rows out of order from a client that sends one at a time"
						}
						if el < want*0.9 {
							return false, fmt.Sprintf("elapsed %.3fs below the 26 x %v = %.3fs of waits", el, delay, want)
						}
						seqElapsed = max(seqElapsed, el)
						return true, ""
					}
					// On the sync app the posts overlap on 40 OS threads and land
					// shuffled. On the async app they overlap on one loop whose
					// timers and queues are FIFO, so they often land nearly in
					// order: only the time is asserted there.
					if inOrder && !async {
						return false, "overlapping posts landed exactly in order A..Z"
					}
					if el > 0.5*seqElapsed {
						return false, fmt.Sprintf("aiohttp took %.3fs, the sequential clients %.3fs: want under half", el, seqElapsed)
					}
					return true, ""
				})
			}
		}
	}
}

// Source 004 on the model alone (no Python needed): clients that post one
// at a time take n waits and leave the rows in order on both apps; the
// aiohttp client overlaps its posts on both apps.
func TestModel004(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	const delay, n = 40 * time.Millisecond, 26
	retryOnce(t, "model 004", func() (bool, string) {
		f, err := Model004(context.Background(), "", delay, n)
		if err != nil {
			t.Fatal(err)
		}
		if f.Len() != len(Apps004)*len(Clients004) {
			t.Fatalf("%d rows, want %d", f.Len(), len(Apps004)*len(Clients004))
		}
		for i := 0; i < f.Len(); i++ {
			name, el := f.Text("strategy", i), f.Float("elapsed_s", i)
			t.Logf("%-34s %.3fs rows %s", name, el, f.Text("order", i))
			if f.Float("errors", i) != 0 || f.Float("rows", i) != n {
				return false, fmt.Sprintf("%s: errors %v, rows %v", name, f.Float("errors", i), f.Float("rows", i))
			}
			seq := n * delay.Seconds()
			if f.Text("client", i) == Client004Label(AiohttpClient) {
				if el > 0.25*seq {
					return false, fmt.Sprintf("%s: %.3fs, want well under the %.3fs of %d serial waits", name, el, seq, n)
				}
				continue
			}
			if f.Float("in_order", i) != 1 || el < 0.95*seq || el > 1.5*seq {
				return false, fmt.Sprintf("%s: %.3fs, in_order %v; want ≈ %.3fs and in order", name, el, f.Float("in_order", i), seq)
			}
		}
		return true, ""
	})
}

// Compare004 agrees with real CPython on every client x app within the
// sleep tolerance (SQLite). Ten posts with a 200 ms wait each keep the
// overlapping runs (one wait) long enough for ±10 % to be above the noise
// of a shared machine.
func TestCompare004(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "requests", "aiohttp", "pymysql", "aiomysql")
	if testing.Short() {
		t.Skip("real-process timing test")
	}
	retryOnce(t, "compare 004", func() (bool, string) {
		a, err := Compare004(context.Background(), Options{}, nil, 200*time.Millisecond, 10)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < a.Len(); i++ {
			t.Logf("%-34s %s (orders: model %s, real %s)", a.Text("strategy", i), a.Text("verdict", i), a.Text("model_order", i), a.Text("real_order", i))
		}
		if a.Len() != 6 || !AllAgree(a) {
			return false, "model and real disagree"
		}
		return true, ""
	})
}

func TestEmails004(t *testing.T) {
	got := Emails004(28)
	if got[0] != "A@A" || got[25] != "Z@Z" || got[26] != "AA@AA" || got[27] != "BB@BB" {
		t.Fatalf("Emails004(28) = %v", got)
	}
	if len(Emails004(0)) != 0 || len(Emails004(-1)) != 0 {
		t.Fatal("Emails004 of n <= 0 is not empty")
	}
	if _, err := Model004(context.Background(), "", time.Millisecond, 0); err == nil {
		t.Fatal("Model004 with n = 0: no error")
	}
	if _, err := Model004(context.Background(), "", -time.Millisecond, 3); err == nil {
		t.Fatal("Model004 with a negative delay: no error")
	}
}
