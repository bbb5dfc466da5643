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
