package requestlog

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
)

var t0 = time.Unix(1764579600, 0)

// rows are requests with every kind of field: a response, a 503, a
// connection error whose message needs quoting, an interrupted one.
var rows = []load.Request{
	{Intended: t0, Start: t0.Add(time.Microsecond), Latency: 1500 * time.Microsecond, Uncorrected: 1499 * time.Microsecond,
		Status: 200, Outcome: metrics.OK, BytesIn: 120, BytesOut: 80, Worker: 3, Conn: 4},
	{Intended: t0.Add(time.Millisecond), Start: t0.Add(time.Millisecond), Latency: time.Second, Uncorrected: time.Second,
		Status: 503, Outcome: metrics.Status5xx, BytesIn: 50, BytesOut: 80, Worker: 0, Conn: 1},
	{Intended: t0.Add(2 * time.Millisecond), Start: t0.Add(2 * time.Millisecond), Outcome: metrics.Conn,
		Err: errors.New(`dial tcp 127.0.0.1:1: connect: "refused", really`), Worker: 1},
	{Intended: t0.Add(3 * time.Millisecond), Start: t0.Add(3 * time.Millisecond), Outcome: metrics.Interrupted,
		Err: errors.New("cut off"), BytesOut: 80, Worker: 2, Conn: 2},
}

func TestCSV(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewCSV(&buf, Options{Segment: "1/3"})
	if err := w.Write(rows[:2]); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows[2:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, buf.String())
	}
	if strings.Join(recs[0], ",") != strings.Join(Columns, ",") || len(recs) != 1+len(rows) {
		t.Fatalf("header %v, %d records", recs[0], len(recs))
	}
	want := [][]string{
		{"1764579600000000000", "1764579600000001000", "1.5", "1.499", "200", "ok", "120", "80", "", "3", "4", "1/3"},
		{"1764579600001000000", "1764579600001000000", "1000", "1000", "503", "5xx", "50", "80", "", "0", "1", "1/3"},
		{"1764579600002000000", "1764579600002000000", "", "", "0", "conn", "0", "0", `dial tcp 127.0.0.1:1: connect: "refused", really`, "1", "0", "1/3"},
		{"1764579600003000000", "1764579600003000000", "", "", "0", "interrupted", "0", "80", "cut off", "2", "2", "1/3"},
	}
	for i, w := range want {
		if got := strings.Join(recs[i+1], "|"); got != strings.Join(w, "|") {
			t.Errorf("row %d = %s; want %s", i, got, strings.Join(w, "|"))
		}
	}
	// No rows: the header alone.
	buf.Reset()
	if err := NewCSV(&buf, Options{}).Close(); err != nil || buf.String() != strings.Join(Columns, ",")+"\n" {
		t.Errorf("empty CSV %q, %v", buf.String(), err)
	}
}

func TestSQLite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.db")
	if err := os.WriteFile(path, []byte("an old file, replaced"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// More rows than a transaction holds.
	for i := 0; i < 2*sqliteCommitRows/len(rows)+1; i++ {
		if err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, ok, nullLat int
	var sumMS float64
	var seg sql.NullString
	err = db.QueryRow(`SELECT count(*), sum(outcome = 'ok'), sum(latency_ms IS NULL), sum(coalesce(latency_ms, 0)), max(segment) FROM requests`).Scan(&n, &ok, &nullLat, &sumMS, &seg)
	if err != nil {
		t.Fatal(err)
	}
	reps := 2*sqliteCommitRows/len(rows) + 1
	if n != reps*len(rows) || ok != reps || nullLat != 2*reps || seg.Valid {
		t.Errorf("%d rows, %d ok, %d without latency, segment %v; want %d, %d, %d, NULL", n, ok, nullLat, seg, reps*len(rows), reps, 2*reps)
	}
	if want := float64(reps) * 1001.5; sumMS < want-1e-6 || sumMS > want+1e-6 {
		t.Errorf("latencies add up to %v ms; want %v", sumMS, want)
	}
}

func TestCreateBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(t.TempDir(), "r.txt"), "want a .csv file"},
		{"/no/such/dir/r.csv", "no such file"},
		{"/no/such/dir/r.db", "/no/such/dir/r.db"},
	} {
		if _, err := Create(tc.path, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Create(%q) = %v; want %q", tc.path, err, tc.want)
		}
	}
}

// A run's requests, streamed to a CSV file: one row each, their statuses
// as the server answered.
func TestRunToCSV(t *testing.T) {
	t.Parallel()
	var k atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k.Add(1)%4 == 0 {
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "r.csv")
	w, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := load.Run(context.Background(), load.Target{URL: srv.URL}, load.Closed{VUs: 4, Total: 1000}, load.Options{Requests: w.Write})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	r := csv.NewReader(f)
	status := map[string]int{}
	for i := 0; ; i++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			status[rec[4]]++
			if _, err := strconv.ParseFloat(rec[2], 64); err != nil {
				t.Fatalf("latency %q", rec[2])
			}
		}
	}
	if status["200"] != 750 || status["404"] != 250 || res.Count() != 1000 {
		t.Errorf("statuses %v over %d requests; want 750 × 200, 250 × 404", status, res.Count())
	}
}
