package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
)

func TestCalibrateBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"calibrate", "extra"}, 2, "takes no arguments"},
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

// TestCalibrateShow prints a file's costs, framework rows included.
func TestCalibrateShow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cal.json")
	c := cpython.SourceMachine(0.2)
	c.Framework = &cpython.Framework{Cost: pymodel.FrameworkCost{Loop: 310 * time.Microsecond}, Requests: 3000}
	if err := cpython.SaveCalibration(path, c); err != nil {
		t.Fatal(err)
	}
	t.Setenv(cpython.CalibrationEnv, filepath.Join(t.TempDir(), "other.json")) // --out decides
	var out, errb bytes.Buffer
	if code := mainCode([]string{"calibrate", "--show", "--out", path}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"framework: uvicorn loop", "0.31", "image convert", path} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
