package calib

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/conclab/conclab/bench/cpython"
)

var parts atomic.Int64

// A part registered under a name of its own (registration is for good, so
// a repeated test registers anew), counting its measurements.
func testPart(t *testing.T, name string, files fs.FS, costs []Cost) *int {
	t.Helper()
	n := new(int)
	Register(Measurement{Name: name, Files: files, Measure: func(context.Context, Options) ([]Cost, error) {
		*n++
		return costs, nil
	}})
	return n
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := cpython.Detect(context.Background(), ""); errors.Is(err, cpython.ErrUnavailable) {
		t.Skip(err)
	}
}

func TestTable(t *testing.T) {
	t.Parallel()
	tb := (&Table{Machine: "m", Python: "CPython 3.11.2", CPUs: 2}).With(Part{Name: "a", Costs: []Cost{{Name: "x", Value: time.Millisecond, GILHeld: 1}}})
	tb = tb.With(Part{Name: "b", Costs: []Cost{{Name: "y", Value: 2 * time.Millisecond}}})
	tb = tb.With(Part{Name: "a", Costs: []Cost{{Name: "x", Value: 3 * time.Millisecond, GILHeld: 0.5}}})
	if len(tb.Parts) != 2 || tb.Parts[0].Name != "a" {
		t.Fatalf("parts %+v; want a (replaced in place), b", tb.Parts)
	}
	c, err := tb.Cost("a", "x")
	if err != nil || c.Value != 3*time.Millisecond || c.GILHeld != 0.5 {
		t.Errorf("Cost(a, x) = %+v, %v", c, err)
	}
	if _, err := tb.Cost("c", "x"); err == nil || !strings.Contains(err.Error(), "parts: a, b") {
		t.Errorf("Cost(c, x): %v; want the parts listed", err)
	}
	if _, err := tb.Cost("a", "z"); err == nil || !strings.Contains(err.Error(), "costs: x") {
		t.Errorf("Cost(a, z): %v; want the costs listed", err)
	}
	f := tb.Frame()
	if f.Len() != 2 || f.Text("part", 1) != "b" || f.Float("cost_ms", 0) != 3 || f.Float("cpus", 0) != 2 {
		t.Errorf("Frame:\n%v", f)
	}
}

func TestRegisterRefuses(t *testing.T) {
	t.Parallel()
	for _, m := range []Measurement{{Name: ""}, {Name: "x"}, {Name: FrameworkPart, Measure: func(context.Context, Options) ([]Cost, error) { return nil, nil }}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", m.Name)
				}
			}()
			Register(m)
		}()
	}
	if _, err := Measure(context.Background(), Options{}, "no such part"); err == nil || !strings.Contains(err.Error(), FrameworkPart) {
		t.Errorf("Measure(unknown): %v; want the registered listed", err)
	}
}

// Save and Load round-trip a table; a file of another version, host or
// with a cost the model cannot run is refused, naming why.
func TestFileRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "calibration.json")
	tb := &Table{Machine: "this machine", Python: "CPython 3.11.2", CPUs: 2,
		Parts: []Part{{Name: "a", Scripts: "0123", Costs: []Cost{{Name: "x", Value: time.Millisecond, GILHeld: 1}}}}}
	if err := Save(path, tb); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil || got.Parts[0].Costs[0] != tb.Parts[0].Costs[0] {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := *tb
	bad.Parts = []Part{{Name: "a", Costs: []Cost{{Name: "x", Value: -time.Millisecond}}}}
	if err := Save(path, &bad); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "cost >= 0") {
		t.Errorf("negative cost: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"version": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("old version: %v", err)
	}
}

// Machine measures what the file lacks or what other scripts measured,
// once, and reads the rest from the file.
func TestMachineMeasuresOnlyStaleParts(t *testing.T) {
	needPython(t)
	t.Setenv(Env, filepath.Join(t.TempDir(), "calibration.json"))
	files := fstest.MapFS{"m.py": {Data: []byte("print(1)")}}
	k := parts.Add(1)
	A, B := fmt.Sprintf("test part A%d", k), fmt.Sprintf("test part B%d", k)
	n := testPart(t, A, files, []Cost{{Name: "x", Value: time.Millisecond, GILHeld: 1}})
	m := testPart(t, B, fstest.MapFS{"m.py": {Data: []byte("print(2)")}}, []Cost{{Name: "y", Value: time.Millisecond}})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		tb, err := Machine(ctx, "", A)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := tb.Cost(A, "x"); err != nil || c.Value != time.Millisecond {
			t.Errorf("round %d: %+v, %v", i, c, err)
		}
	}
	if *n != 1 || *m != 0 {
		t.Errorf("A measured %d times, B %d; want once, never", *n, *m)
	}
	tb, err := Machine(ctx, "", A, B)
	if err != nil || len(tb.Parts) != 2 || *n != 1 || *m != 1 {
		t.Errorf("adding B: %v parts, A %d B %d, %v", len(tb.Parts), *n, *m, err)
	}
	files["m.py"] = &fstest.MapFile{Data: []byte("print(3)")} // A's script changed
	if _, err := Machine(ctx, "", A); err != nil || *n != 2 {
		t.Errorf("A's script changed: measured %d times (%v); want again", *n, err)
	}
	if _, err := Recalibrate(ctx, "", File(), B); err != nil || *m != 2 {
		t.Errorf("Recalibrate(B): measured %d times (%v)", *m, err)
	}
}

// The framework part on the real stack, quickly: each cost positive.
func TestFrameworkQuick(t *testing.T) {
	needPython(t)
	env, _ := cpython.Detect(context.Background(), "")
	if err := env.Require("fastapi", "uvicorn", "flask", "gunicorn"); err != nil {
		t.Skip(err)
	}
	tb, err := Measure(context.Background(), Options{Quick: true}, FrameworkPart)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := Framework(tb)
	if err != nil {
		t.Fatal(err)
	}
	if fw.Loop <= 0 || fw.Thread <= 0 || fw.ThreadStart <= 0 || fw.Threadpool < 0 {
		t.Errorf("framework %+v\n%v", fw, tb)
	}
}
