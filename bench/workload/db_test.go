package workload_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/workload"
)

// backends lists the databases to test: SQLite always, MariaDB/MySQL and
// PostgreSQL when CONCLAB_MYSQL_DSN / CONCLAB_PG_DSN are set (scripts/
// services.sh writes them to .services.env; CI sources it).
func backends(t *testing.T) []struct{ name, dsn, env string } {
	return []struct{ name, dsn, env string }{
		{"sqlite", "", ""},
		{"mysql", os.Getenv("CONCLAB_MYSQL_DSN"), "CONCLAB_MYSQL_DSN"},
		{"postgres", os.Getenv("CONCLAB_PG_DSN"), "CONCLAB_PG_DSN"},
	}
}

func openBackend(t *testing.T, name, dsn, env string) *workload.DB {
	t.Helper()
	if env != "" && dsn == "" && os.Getenv("CI") != "" {
		t.Fatalf("%s is not set in CI: .ci/run must start the databases and source .services.env", env)
	}
	if env != "" && dsn == "" {
		t.Skipf("SKIPPING %s TESTS: %s is not set (source .services.env after scripts/services.sh start; CI sets it)", strings.ToUpper(name), env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	db, err := workload.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if db.Backend() != name {
		t.Fatalf("Backend() = %q; want %q", db.Backend(), name)
	}
	return db
}

func TestDBInsertOrder(t *testing.T) {
	t.Parallel()
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db := openBackend(t, b.name, b.dsn, b.env)
			ctx := context.Background()
			emails := workload.Emails(26)
			for _, e := range emails {
				if err := db.Insert(ctx, e); err != nil {
					t.Fatal(err)
				}
			}
			rows, err := db.Rows(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(rows.Texts("value"), ","), strings.Join(emails, ","); got != want {
				t.Errorf("values in arrival order = %s; want %s", got, want)
			}
			seq := rows.Floats("seq")
			tms := rows.Floats("t_ms")
			for i := range seq {
				if seq[i] != float64(i+1) {
					t.Fatalf("seq[%d] = %v; want %d", i, seq[i], i+1)
				}
				if i > 0 && tms[i] < tms[i-1] {
					t.Errorf("t_ms not increasing for sequential inserts: %v then %v", tms[i-1], tms[i])
				}
			}
		})
	}
}

func TestDBConcurrentInsertsAndIsolation(t *testing.T) {
	t.Parallel()
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db1 := openBackend(t, b.name, b.dsn, b.env)
			var db2 *workload.DB
			var err error
			if b.name == "sqlite" {
				// A second run in the same SQLite file.
				db2, err = workload.OpenDBConfig(context.Background(), workload.DBConfig{DSN: "sqlite:" + db1.Host()})
			} else {
				db2, err = workload.OpenDB(context.Background(), b.dsn)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer db2.Close()
			ctx := context.Background()
			emails := workload.Emails(26)
			var wg sync.WaitGroup
			errs := make(chan error, 2*len(emails))
			for _, e := range emails {
				wg.Add(2)
				go func() { defer wg.Done(); errs <- db1.Insert(ctx, e) }()
				go func() { defer wg.Done(); errs <- db2.Insert(ctx, strings.ToLower(e)) }()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range []struct {
				db    *workload.DB
				lower bool
			}{{db1, false}, {db2, true}} {
				n, err := c.db.Count(ctx)
				if err != nil || n != 26 {
					t.Fatalf("run %s count = %d, %v; want 26", c.db.Run(), n, err)
				}
				rows, err := c.db.Rows(ctx)
				if err != nil {
					t.Fatal(err)
				}
				got := rows.Texts("value")
				sort.Strings(got)
				want := workload.Emails(26)
				if c.lower {
					for i := range want {
						want[i] = strings.ToLower(want[i])
					}
				}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("run %s holds %v; want %v", c.db.Run(), got, want)
				}
			}
		})
	}
}

func TestDBCloseDeletesRun(t *testing.T) {
	t.Parallel()
	for _, b := range backends(t)[1:] {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db := openBackend(t, b.name, b.dsn, b.env)
			ctx := context.Background()
			if err := db.Insert(ctx, "x@x"); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			again, err := workload.OpenDBConfig(ctx, workload.DBConfig{DSN: b.dsn, Run: db.Run()})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if n, err := again.Count(ctx); n != 0 || err != nil {
				t.Errorf("after Close the run has %d rows (err %v); want 0", n, err)
			}
		})
	}
}

// TestSQLiteJournalModeFromDSN: a journal_mode the DSN names wins over WAL.
func TestSQLiteJournalModeFromDSN(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "j.db") + "?_pragma=journal_mode(TRUNCATE)"
	db, err := workload.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "truncate" {
		t.Errorf("journal_mode %q, want truncate (the DSN's)", mode)
	}
}

func TestSQLiteSettingsAndCleanup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := workload.OpenDB(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	var busy int
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" || busy != 5000 {
		t.Errorf("journal_mode %q, busy_timeout %d; want wal, 5000", mode, busy)
	}
	if err := db.Insert(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(db.Host())
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temp SQLite dir %s still there after Close", dir)
	}

	// A named file is the caller's: Close leaves it, and with Keep its rows.
	path := filepath.Join(t.TempDir(), "kept.db")
	db, err = workload.OpenDBConfig(ctx, workload.DBConfig{DSN: "sqlite:" + path, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Insert(ctx, "kept")
	db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("named SQLite file gone after Close: %v", err)
	}
}

func TestDBBadInput(t *testing.T) {
	t.Parallel()
	pgPass := "s3cretPW"
	tests := []struct {
		name    string
		cfg     workload.DBConfig
		want    []string
		wantNot string
	}{
		{"unknown dsn", workload.DBConfig{DSN: "redis://127.0.0.1"}, []string{"DSN not recognised"}, ""},
		{"mysql refused", workload.DBConfig{DSN: "conclab:" + pgPass + "@tcp(127.0.0.1:1)/conclab", ConnectTimeout: 2 * time.Second},
			[]string{"connect to mysql (driver mysql)", "127.0.0.1:1"}, pgPass},
		{"postgres refused", workload.DBConfig{DSN: "postgres://conclab:" + pgPass + "@127.0.0.1:1/conclab?sslmode=disable", ConnectTimeout: 2 * time.Second},
			[]string{"connect to postgres (driver pgx)", "127.0.0.1:1"}, pgPass},
		{"postgres bad url", workload.DBConfig{DSN: "postgres://conclab:" + pgPass + "@127.0.0.1:notaport/x"},
			[]string{"postgres DSN does not parse"}, pgPass},
		{"mysql bad dsn", workload.DBConfig{DSN: "conclab:" + pgPass + "@tcp(127.0.0.1:3306"},
			[]string{"mysql DSN does not parse"}, pgPass},
		{"bad table", workload.DBConfig{Table: "x; DROP TABLE y"}, []string{"table name"}, ""},
		{"long run id", workload.DBConfig{Run: strings.Repeat("r", 65)}, []string{"longer than 64"}, ""},
		{"sqlite dir missing", workload.DBConfig{DSN: "sqlite:/nonexistent/dir/x.db"}, []string{"sqlite", "/nonexistent/dir/x.db"}, ""},
	}
	if dsn := os.Getenv("CONCLAB_PG_DSN"); dsn != "" {
		bad := strings.Replace(dsn, "conclab:", "conclab:"+pgPass+"x", 1)
		tests = append(tests, struct {
			name    string
			cfg     workload.DBConfig
			want    []string
			wantNot string
		}{"postgres wrong password", workload.DBConfig{DSN: bad}, []string{"connect to postgres", "127.0.0.1:5432"}, pgPass})
	}
	if dsn := os.Getenv("CONCLAB_MYSQL_DSN"); dsn != "" {
		bad := strings.Replace(dsn, "conclab:", "conclab:"+pgPass+"x", 1)
		tests = append(tests, struct {
			name    string
			cfg     workload.DBConfig
			want    []string
			wantNot string
		}{"mysql wrong password", workload.DBConfig{DSN: bad}, []string{"connect to mysql", "127.0.0.1:3306"}, pgPass})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			db, err := workload.OpenDBConfig(context.Background(), tc.cfg)
			if err == nil {
				db.Close()
				t.Fatal("OpenDB succeeded; want an error")
			}
			t.Logf("err: %v", err)
			for _, w := range tc.want {
				if !contains(err.Error(), w) {
					t.Errorf("err = %v; want it to name %q", err, w)
				}
			}
			if tc.wantNot != "" && contains(err.Error(), tc.wantNot) {
				t.Errorf("err = %v; it reveals the password", err)
			}
			if el := time.Since(start); el > 8*time.Second {
				t.Errorf("failing took %v; want it bounded by the connect timeout", el)
			}
		})
	}
}

func TestDBInsertTooLong(t *testing.T) {
	t.Parallel()
	db := openBackend(t, "sqlite", "", "")
	if err := db.Insert(context.Background(), strings.Repeat("x", 256)); err == nil || !contains(err.Error(), "256 bytes") {
		t.Fatalf("err = %v; want the length named", err)
	}
}

func BenchmarkInsert(b *testing.B) {
	for _, be := range []struct{ name, dsn, env string }{
		{"sqlite", "", ""},
		{"mysql", os.Getenv("CONCLAB_MYSQL_DSN"), "CONCLAB_MYSQL_DSN"},
		{"postgres", os.Getenv("CONCLAB_PG_DSN"), "CONCLAB_PG_DSN"},
	} {
		b.Run(be.name, func(b *testing.B) {
			if be.env != "" && be.dsn == "" {
				b.Skipf("%s not set", be.env)
			}
			db, err := workload.OpenDB(context.Background(), be.dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := db.Insert(context.Background(), fmt.Sprintf("user%d@example.com", i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func ExampleOpenDB() {
	ctx := context.Background()
	db, err := workload.OpenDB(ctx, "") // embedded SQLite in a temp file
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	for _, email := range workload.Emails(4) {
		if err := db.Insert(ctx, email); err != nil {
			fmt.Println(err)
			return
		}
	}
	rows, err := db.Rows(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(db.Backend(), rows.Floats("seq"), rows.Texts("value"))
	// Output: sqlite [1 2 3 4] [A@A B@B C@C D@D]
}

func ExampleOpenDB_badDSN() {
	_, err := workload.OpenDB(context.Background(), "mongodb://127.0.0.1")
	fmt.Println(err != nil && strings.Contains(err.Error(), "DSN not recognised"))
	// Output: true
}

// TestDBLeavesNothingRunning: Close stops every pool goroutine.
func TestDBLeavesNothingRunning(t *testing.T) {
	base := runtime.NumGoroutine()
	for _, b := range backends(t) {
		if b.env != "" && b.dsn == "" {
			continue
		}
		db, err := workload.OpenDB(context.Background(), b.dsn)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Insert(context.Background(), "leak@check"); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	waitGoroutines(t, base)
}

// TestDBConcurrentSchemaCreation opens six handles at once on a table that
// does not exist yet, as parallel tests on a fresh CI database do.
func TestDBConcurrentSchemaCreation(t *testing.T) {
	t.Parallel()
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			if b.env != "" && b.dsn == "" {
				openBackend(t, b.name, b.dsn, b.env) // skips loudly
			}
			dsn := b.dsn
			if b.name == "sqlite" {
				dsn = "sqlite:" + filepath.Join(t.TempDir(), "race.db")
			}
			table := fmt.Sprintf("conclab_race_%d", time.Now().UnixNano()%1e9)
			var wg sync.WaitGroup
			dbs := make([]*workload.DB, 6)
			errs := make([]error, 6)
			for i := range dbs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					dbs[i], errs[i] = workload.OpenDBConfig(context.Background(), workload.DBConfig{DSN: dsn, Table: table})
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("handle %d: %v", i, err)
					continue
				}
				if err := dbs[i].Insert(context.Background(), "x"); err != nil {
					t.Errorf("insert %d: %v", i, err)
				}
				if b.name == "sqlite" {
					var mode string
					if err := dbs[i].SQL().QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
						t.Errorf("handle %d: journal_mode %q (err %v), want wal", i, mode, err)
					}
				}
			}
			// Every handle deletes its rows, then the table goes.
			for _, db := range dbs[1:] {
				if db != nil {
					db.Close()
				}
			}
			if dbs[0] != nil {
				if _, err := dbs[0].SQL().Exec("DROP TABLE " + table); err != nil {
					t.Errorf("drop %s: %v", table, err)
				}
				dbs[0].Close()
			}
		})
	}
}

func ExampleOpenDBConfig() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	db, err := workload.OpenDBConfig(ctx, workload.DBConfig{
		DSN:   "sqlite:" + filepath.Join(dir, "lab.db"), // or os.Getenv("CONCLAB_PG_DSN"), ...
		Table: "signups",
		Run:   "source-004",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	db.Insert(ctx, "A@A")
	n, _ := db.Count(ctx)
	fmt.Println(db.Backend(), db.Driver(), db.Table(), db.Run(), n)
	// Output: sqlite sqlite signups source-004 1
}
