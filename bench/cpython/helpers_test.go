package cpython

import (
	"context"
	"errors"
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
	srv := NewServer(app, Options{StopGrace: time.Second})
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
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
