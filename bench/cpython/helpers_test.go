package cpython

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// needPython skips the test when real CPython or a module is missing: the
// package's contract is that such a machine skips, never fails.
func needPython(t *testing.T, mods ...string) *Env {
	t.Helper()
	env, err := Detect(context.Background(), "")
	if err == nil {
		err = env.Require(mods...)
	}
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("real CPython unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// startServer starts app and registers Close; it also checks at cleanup
// that the server's process group is gone.
func startServer(t *testing.T, app App) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv := NewServer(app, Options{})
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = ctx
	pgid := srv.PGID()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if left := GroupMembers(pgid); len(left) > 0 {
			t.Errorf("Close left processes %v of group %d", left, pgid)
		}
	})
	return srv
}

// inBand reports whether got lies within tol of the band [lo, hi]:
// lo*(1-tol) <= got <= hi*(1+tol).
func inBand(got, lo, hi, tol float64) bool {
	return got >= lo*(1-tol) && got <= hi*(1+tol) && !math.IsNaN(got)
}

// retryOnce runs check; when it fails it logs why and runs it once more,
// reporting the second failure. Timing checks on a shared two-core machine
// get one second chance; a real regression fails both.
func retryOnce(t *testing.T, name string, check func() (ok bool, why string)) {
	t.Helper()
	ok, why := check()
	if ok {
		return
	}
	t.Logf("%s: first try off (%s); retrying once", name, why)
	if ok, why = check(); !ok {
		t.Errorf("%s: %s", name, why)
	}
}
