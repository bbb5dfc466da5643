package cpython

import (
	"context"
	"strings"
	"testing"
	"time"
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

// A preset starts as a server under its row name and answers its request.
func TestPresetServer(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	r, err := Preset("/async-ok", Scale{Wait001: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := r.Server(Options{})
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req, err := r.Request(srv)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Burst(context.Background(), srv.Name(), req, 5)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Name() != "/async-ok" || f.Float("errors", 0) != 0 || f.Float("count", 0) != 5 {
		t.Errorf("preset run: name %q\n%v", srv.Name(), f)
	}
}
