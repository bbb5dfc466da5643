package cpython

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/strategy"
)

func TestPresets(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range Presets(Scale{}) {
		if seen[r.Name] {
			t.Errorf("duplicate preset %q", r.Name)
		}
		seen[r.Name] = true
		if err := r.App.Validate(); err != nil {
			t.Errorf("preset %q: %v", r.Name, err)
		}
		if _, err := Source(strings.Split(r.App.Module, ":")[0] + ".py"); err != nil {
			t.Errorf("preset %q: %v", r.Name, err)
		}
	}
	for _, name := range []string{"sync", "asyncio", "ThreadPool", "ProcessPool", "/sync-sleep", "/offload", "doPrint", "Flask 2w x 5t cpu"} {
		if _, err := Preset(name, Scale{}); err != nil {
			t.Errorf("Preset(%q) = %v", name, err)
		}
	}
	if _, err := Preset("nope", Scale{}); err == nil || !strings.Contains(err.Error(), "/sync-sleep") {
		t.Errorf("Preset(nope) = %v; want an error listing the names", err)
	}
	r, _ := Preset("/sync-sleep", Scale{Wait001: 300 * time.Millisecond})
	if r.App.Env["CONCLAB_WAIT_S"] != "0.3" {
		t.Errorf("scaled wait = %q; want 0.3", r.App.Env["CONCLAB_WAIT_S"])
	}
}

// A preset is a Real strategy under its row name: one bench.Run sends it
// its request path and every request is answered.
func TestPresetServer(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	r, err := Preset("/async-ok", Scale{Wait001: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{Strategies: []strategy.Strategy{r}, Load: load.Burst{N: 5}})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Text("strategy", 0) != "/async-ok" || s.Float("errors", 0) != 0 || s.Float("count", 0) != 5 {
		t.Errorf("preset run:\n%v", s)
	}
}
