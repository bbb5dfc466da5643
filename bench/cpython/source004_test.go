package cpython

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// Source 004, model and real side by side: every client x app on both
// sides posts every user; the clients that send one post at a time leave
// the rows in order and take at least n waits, on either app and side.
func TestVersus004(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "requests", "aiohttp", "pymysql", "aiomysql")
	const delay, n = 30 * time.Millisecond, 8
	db := &DB{MySQLDSN: os.Getenv("CONCLAB_MYSQL_DSN")}
	f, err := Versus004(context.Background(), Options{StopGrace: time.Second}, db, delay, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", f)
	if f.Len() != 12 {
		t.Fatalf("%d rows; want 12 (3 clients x 2 apps x 2 sides)", f.Len())
	}
	for i := 0; i < f.Len(); i++ {
		l := f.Text("strategy", i)
		if f.Float("count", i) != n || f.Float("errors", i) != 0 || f.Float("rows", i) != n {
			t.Errorf("%s: count %v errors %v rows %v; want %d, 0, %d", l, f.Float("count", i), f.Float("errors", i), f.Float("rows", i), n, n)
		}
		if strings.Contains(l, "aiohttp") {
			continue
		}
		if f.Float("in_order", i) != 1 {
			t.Errorf("%s: rows %q out of order from a client that sends one at a time", l, f.Text("order", i))
		}
		if el := f.Float("elapsed_s", i); el < n*delay.Seconds()*0.95 {
			t.Errorf("%s: %.3fs below %d waits of %v", l, el, n, delay)
		}
	}
	if _, err := Versus004(context.Background(), Options{}, nil, 0, n); err == nil {
		t.Error("zero delay: no error")
	}
}

func TestEmails004(t *testing.T) {
	t.Parallel()
	got := Emails004(28)
	if got[0] != "A@A" || got[25] != "Z@Z" || got[26] != "AA@AA" || got[27] != "BB@BB" {
		t.Errorf("Emails004(28) = %v", got)
	}
}

// The model's traces come with its summary: one strategy per client x app.
func TestModel004Traced(t *testing.T) {
	t.Parallel()
	sum, tr, err := Model004Traced(context.Background(), "", 10*time.Millisecond, 5)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Len() != 6 || len(tr.Unique("strategy")) != 6 {
		t.Errorf("summary %d rows, traces of %v", sum.Len(), tr.Unique("strategy"))
	}
}
