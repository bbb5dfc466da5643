package s004_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/lab"
	"github.com/conclab/conclab/sources/s004"
	"github.com/conclab/conclab/sources/shape"
)

func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func TestEmails(t *testing.T) {
	t.Parallel()
	got := s004.Emails(28)
	if got[0] != "A@A" || got[25] != "Z@Z" || got[26] != "AA@AA" || got[27] != "BB@BB" {
		t.Errorf("Emails(28) = %v", got)
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	f := s004.Default.Estimate()
	if got := f.Floats("waves"); !reflect.DeepEqual(got, []float64{26, 26, 1, 26, 1}) {
		t.Errorf("waves %v", got)
	}
	if got := f.Float("elapsed_s", 0); got < 17.9 || got > 18 {
		t.Errorf("sync client / sync app: %v s; want 26 x 0.69 s = 17.94 s, the source's 18 s", got)
	}
}

// The apps' models are the registry's presets.
func TestAppsArePresets(t *testing.T) {
	t.Parallel()
	for _, app := range s004.Apps() {
		m, err := s004.AppModel(app, 0)
		if err != nil {
			t.Fatal(err)
		}
		p, err := strategy.Preset(app)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, m) {
			t.Errorf("preset %q = %#v; the source's literal %#v", app, p, m)
		}
	}
}

// Every client against every app on the model, through bench.Run: the
// shape, from the knobs.
func TestShapeModel(t *testing.T) {
	t.Parallel()
	k := s004.Knobs{N: 8, Delay: 30 * time.Millisecond}
	sum, tr, err := k.Run(context.Background(), pymodel.FrameworkCost{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Len() != 5 || len(tr.Unique("strategy")) != 5 {
		t.Errorf("summary %d rows, traces of %v", sum.Len(), tr.Unique("strategy"))
	}
	if err := shape.Err("source 004", k.Checks(sum, tr)...); err != nil {
		t.Errorf("%v\n%v", err, sum)
	}
}

// Model and real side by side: every client x app on both sides posts
// every user; the one-at-a-time clients leave the rows in order.
func TestShapeVersus(t *testing.T) {
	env, err := cpython.Detect(context.Background(), "")
	if err == nil {
		err = env.Require("fastapi", "uvicorn", "requests", "aiohttp", "pymysql", "aiomysql")
	}
	if errors.Is(err, cpython.ErrUnavailable) {
		t.Skip(err)
	}
	t.Setenv("CONCLAB_CALIBRATION", t.TempDir()+"/calibration.json")
	k := s004.Knobs{N: 8, Delay: 200 * time.Millisecond, MySQLDSN: os.Getenv("CONCLAB_MYSQL_DSN")} // 200 ms: a new thread's database connection (sync app, MariaDB) costs tens of ms on a busy machine
	f, tr, err := k.Versus(context.Background(), cpython.Options{StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if f.Len() != 10 {
		t.Fatalf("%d rows; want 10 (the source's 5 pairs x 2 sides)\n%v", f.Len(), f)
	}
	if err := shape.Err("source 004 versus", k.Checks(f, tr)...); err != nil {
		t.Errorf("%v\n%v", err, f)
	}
}

// The lesson's runs: the five pairs through bench.Run, the rows read back
// per pair; with jitter the one-at-a-time clients still leave their rows
// in order, and aiohttp's overlapping posts (8 at once, waits up to twice
// as long as each other) land shuffled on at least one app.
func TestRunsJitter(t *testing.T) {
	t.Parallel()
	k := s004.Knobs{N: 8, Delay: 30 * time.Millisecond, Jitter: 30 * time.Millisecond}
	r := s004.New(k)
	res, err := bench.Run(context.Background(), r.Experiment())
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Summary(res, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Len() != 5 {
		t.Fatalf("%d rows; want the source's 5 pairs\n%v", sum.Len(), sum)
	}
	if err := shape.Err("source 004 with jitter", k.Checks(sum, res.Trace)...); err != nil {
		t.Errorf("%v\n%v", err, sum)
	}
	shuffled := 0
	for _, row := range sum.Rows() {
		if row.Float("at_once") < 1 || row.Float("waits") <= 0 || row.Float("rows") != 8 {
			t.Errorf("%s: at_once %v, waits %v, rows %v", row.Text("strategy"), row.Float("at_once"), row.Float("waits"), row.Float("rows"))
		}
		if row.Text("client") == s004.ClientLabel(s004.AiohttpClient) && row.Float("in_order") == 0 {
			shuffled++
		}
	}
	if shuffled == 0 {
		t.Errorf("aiohttp's rows landed in order on both apps despite the jitter\n%v", sum)
	}
	o := s004.Orders(s004.Table(), sum, map[string]string{s004.Label(s004.SyncClient, s004.SyncApp): "in order"})
	if o.Len() != 5 || o.Text("source", 3) != "not stated" || o.Text("model", 0) != "in order" || o.Text("guess", 1) != "no guess" {
		t.Errorf("orders\n%v", o)
	}
}

// The branches, model and (where CPython has FastAPI) real: two awaits in
// a row take at least two waits per handler; gathered, at least one and
// less than in a row.
func TestBranches(t *testing.T) {
	k := s004.Knobs{N: 6, Delay: 40 * time.Millisecond}
	e := s004.Branches(k)
	if len(e.Strategies) != 4 || e.Strategies[1].Label() != "real "+s004.InARow || e.Strategies[3].Label() != "real "+s004.Gathered {
		t.Fatalf("strategies %v", e.Strategies)
	}
	res, err := lab.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	rows := []string{""}
	env, err := cpython.Detect(context.Background(), "")
	if err == nil {
		err = env.Require("fastapi", "uvicorn", "pymysql", "aiomysql")
	}
	if err == nil {
		rows = append(rows, "real ")
	} else if !errors.Is(err, cpython.ErrUnavailable) {
		t.Fatal(err)
	}
	for _, p := range rows {
		row, gat := res.Value(p+s004.InARow, "avg_ms"), res.Value(p+s004.Gathered, "avg_ms")
		if row < 80 || gat < 40 || gat >= row || res.Value(p+s004.InARow, "errors") != 0 || res.Value(p+s004.Gathered, "count") != 6 {
			t.Errorf("%sin a row %v ms, gathered %v ms; want >= 80, >= 40 and less\n%v", p, row, gat, res.Summary)
		}
	}
	est := s004.BranchesEstimate(k)
	if est.Float("avg_ms", 0) != 80 || est.Float("avg_ms", 1) != 40 {
		t.Errorf("estimate\n%v", est)
	}
}

// Bad knobs are errors naming the knob.
func TestValidate(t *testing.T) {
	t.Setenv("CONCLAB_MYSQL_DSN", "")
	for _, c := range []struct {
		k    s004.Knobs
		want string
	}{
		{s004.Knobs{N: -1, Delay: time.Second}, "s004: posts (POSTs per run) must be in 1..1000, got -1"},
		{s004.Knobs{N: 3, Delay: -time.Second}, "delay"},
		{s004.Knobs{N: 3, Delay: time.Second, Jitter: -1}, "jitter"},
		{s004.Knobs{N: 3, Delay: time.Second, Database: "oracle"}, "database"},
		{s004.Knobs{N: 3, Delay: time.Second, Database: "mysql"}, "CONCLAB_MYSQL_DSN"},
	} {
		err := c.k.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want an error naming %s", c.k, err, c.want)
		}
	}
	if _, err := bench.Run(context.Background(), s004.New(s004.Knobs{N: 0, Delay: time.Second}).Experiment()); err == nil || !strings.Contains(err.Error(), "posts") {
		t.Errorf("a run with 0 posts: %v", err)
	}
}

// The real side of the lesson's runs: the apps traced, each row's at_once
// read from the real app's trace while its client ran — one handler at a
// time for the clients that post one at a time, at least two for aiohttp's.
func TestRunsReal(t *testing.T) {
	env, err := cpython.Detect(context.Background(), "")
	if err == nil {
		err = env.Require("fastapi", "uvicorn", "requests", "aiohttp", "pymysql", "aiomysql")
	}
	if errors.Is(err, cpython.ErrUnavailable) {
		t.Skip(err)
	}
	k := s004.Knobs{N: 6, Delay: 200 * time.Millisecond, MySQLDSN: os.Getenv("CONCLAB_MYSQL_DSN")}
	real, err := s004.New(k).Real(context.Background(), cpython.Options{StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if real.Len() != 5 {
		t.Fatalf("%d rows\n%v", real.Len(), real)
	}
	for _, row := range real.Rows() {
		most := row.Float("at_once")
		if row.Text("client") == s004.ClientLabel(s004.AiohttpClient) {
			if most < 2 {
				t.Errorf("%s: %v handlers at once; want >= 2", row.Text("strategy"), most)
			}
		} else if most != 1 {
			t.Errorf("%s: %v handlers at once; want 1", row.Text("strategy"), most)
		}
	}
}
