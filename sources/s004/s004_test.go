package s004_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
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
	if got := f.Floats("waves"); !reflect.DeepEqual(got, []float64{26, 26, 1, 26, 26, 1}) {
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
	if sum.Len() != 6 || len(tr.Unique("strategy")) != 6 {
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
	k := s004.Knobs{N: 8, Delay: 50 * time.Millisecond, MySQLDSN: os.Getenv("CONCLAB_MYSQL_DSN")}
	f, tr, err := k.Versus(context.Background(), cpython.Options{StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if f.Len() != 12 {
		t.Fatalf("%d rows; want 12 (3 clients x 2 apps x 2 sides)\n%v", f.Len(), f)
	}
	if err := shape.Err("source 004 versus", k.Checks(f, tr)...); err != nil {
		t.Errorf("%v\n%v", err, f)
	}
}
