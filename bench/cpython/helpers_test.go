package cpython

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"strconv"
	"testing"
	"time"
)

//go:embed testdata/*.py
var testdata embed.FS

// testFiles are the package's own test apps (testdata).
func testFiles() fs.FS {
	sub, _ := fs.Sub(testdata, "testdata")
	return sub
}

// testApp is testdata's FastAPI app under uvicorn, waiting wait by default.
func testApp(wait time.Duration) App {
	return App{Name: "uvicorn", Files: testFiles(), Module: "apptest:app", Server: Uvicorn,
		Env: map[string]string{"CONCLAB_WAIT_S": strconv.FormatFloat(wait.Seconds(), 'f', -1, 64)}, Requires: FastAPIModules}
}

// flaskApp is testdata's Flask app under gunicorn, workers x threads.
func flaskApp(workers, threads int, wait time.Duration) App {
	return App{Name: "gunicorn", Files: testFiles(), Module: "flasktest:app", Server: Gunicorn, Workers: workers, Threads: threads,
		Env: map[string]string{"CONCLAB_WAIT_S": strconv.FormatFloat(wait.Seconds(), 'f', -1, 64)}, Requires: []string{"flask", "gunicorn"}}
}

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
