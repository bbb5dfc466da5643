package cpython

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"
)

// Every upload strategy inserts its row: into SQLite, and into MySQL /
// MariaDB through PyMySQL (sync, ThreadPool, ProcessPool) and aiomysql
// (asyncio) when CONCLAB_MYSQL_DSN is set. The table is dropped at Close.
func TestUploadInserts(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "PIL", "multipart", "pymysql", "aiomysql")
	dbs := []*DB{{}}
	if dsn := os.Getenv("CONCLAB_MYSQL_DSN"); dsn != "" {
		dbs = append(dbs, &DB{MySQLDSN: dsn})
	}
	ctx := context.Background()
	for _, db := range dbs {
		app := App000Upload(db)
		app.ImageSize = ImageSize{320, 180}
		srv := startServer(t, app)
		for _, s := range Strategies000 {
			for _, which := range []string{"large", "small"} {
				req, err := Upload(srv.URL()+Upload000[s], srv.ImagePath(which))
				if err != nil {
					t.Fatal(err)
				}
				f, err := Burst(ctx, s, req, 2)
				if err != nil {
					t.Fatal(err)
				}
				if f.Float("errors", 0) != 0 {
					t.Errorf("%s %s %s: %s; log: %s", db.Kind(), s, which, f.Text("first_error", 0), srv.Log(600))
				}
			}
		}
		if db.Kind() != "mysql" {
			continue
		}
		conn, err := sql.Open("mysql", db.MySQLDSN)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+srv.Table()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 16 {
			t.Errorf("mysql table %s has %d rows; want 16 (4 strategies x 2 images x 2)", srv.Table(), n)
		}
		table := srv.Table()
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		err = conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table).Scan(&n)
		if err == nil || !strings.Contains(err.Error(), "doesn't exist") {
			t.Errorf("table %s after Close: %v; want it dropped", table, err)
		}
		conn.Close()
	}
}

func TestLoadBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"burst zero", func() error { _, err := Burst(ctx, "x", Get("http://127.0.0.1:1/"), 0); return err }, "n must be"},
		{"burst no url", func() error { _, err := Burst(ctx, "x", Request{}, 1); return err }, "no URL"},
		{"vus zero", func() error { _, err := ClosedVUs(ctx, "x", Get("http://127.0.0.1:1/"), 0, time.Second, 0); return err }, "vus must be"},
		{"negative think", func() error {
			_, err := ClosedVUs(ctx, "x", Get("http://127.0.0.1:1/"), 1, time.Second, -time.Second)
			return err
		}, "think"},
		{"upload missing file", func() error { _, err := Upload("http://127.0.0.1:1/", "/nonexistent.jpg"); return err }, "nonexistent"},
		{"agreement no key", func() error {
			_, err := Agreement("a", newSummaryFrame("m"), newSummaryFrame("r"), "nokey", nil, 0.1)
			return err
		}, "no key column"},
		{"model burst zero", func() error {
			h, _ := Handler001(AsyncOK, time.Millisecond)
			_, err := ModelBurst(ctx, "x", pymodelConfig(), 1, h, 0)
			return err
		}, "n must be"},
		{"unknown endpoint", func() error { _, err := Handler001("/nope", time.Second); return err }, "unknown source-001"},
		{"client002 mode", func() error { _, err := Client002(ctx, Options{}, "http://127.0.0.1:1/", "fibers", 1, 1); return err }, "unknown mode"},
		{"bad table", func() error { _, err := (&DB{Table: "x; DROP"}).env(t.TempDir(), "x; DROP"); return err }, "table name"},
		{"bad dsn", func() error { _, err := (&DB{MySQLDSN: "nonsense"}).env(t.TempDir(), "t"); return err }, "DSN"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if err := c.run(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: err = %v; want one containing %q", c.name, err, c.want)
			}
		})
	}
}

// A refused connection is counted as an error, never a panic or hang.
func TestBurstRefused(t *testing.T) {
	t.Parallel()
	f, err := Burst(context.Background(), "refused", Get("http://127.0.0.1:1/"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if f.Float("errors", 0) != 3 || f.Text("first_error", 0) == "" {
		t.Errorf("burst to a closed port:\n%v", f)
	}
}
