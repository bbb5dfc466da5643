package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/calib"
)

func TestCalibrateBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"calibrate", "extra"}, 2, `no part "extra"`},
		{[]string{"calibrate", "--show", "--out", missing, "003"}, 2, "takes no parts"},
		{[]string{"calibrate", "--nope"}, 2, "flag provided but not defined"},
		{[]string{"calibrate", "--show", "--out", missing}, 1, missing},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := mainCode(c.args, &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}

// TestCalibrateShow prints a file's costs, every part's.
func TestCalibrateShow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cal.json")
	tb := &calib.Table{Machine: "this machine", Python: "CPython 3.11.2", CPUs: 2, Parts: []calib.Part{
		{Name: calib.FrameworkPart, Costs: []calib.Cost{{Name: "uvicorn loop", Value: 310 * time.Microsecond, GILHeld: 1}}},
		{Name: "000 upload", Costs: []calib.Cost{{Name: "decode", Value: 135 * time.Millisecond, GILHeld: 0.16}}},
	}}
	if err := calib.Save(path, tb); err != nil {
		t.Fatal(err)
	}
	t.Setenv(calib.Env, filepath.Join(t.TempDir(), "other.json")) // --out decides
	var out, errb bytes.Buffer
	if code := mainCode([]string{"calibrate", "--show", "--out", path}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"uvicorn loop", "0.31", "decode", "000 upload", path} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// The registered parts are every source's, listed in the usage.
func TestCalibrateParts(t *testing.T) {
	var out, errb bytes.Buffer
	mainCode([]string{"calibrate", "--help"}, &out, &errb)
	for _, p := range []string{"framework", "000 print", "000 upload", "003"} {
		if !strings.Contains(errb.String(), p) {
			t.Errorf("usage lacks part %q:\n%s", p, errb.String())
		}
	}
}
