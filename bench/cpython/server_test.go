package cpython

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestAppValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		app  App
		want string // substring of the error; "" for none
	}{
		{"ok", testApp(time.Second), ""},
		{"no files", App{Name: "x", Module: "a:app", Server: Uvicorn}, "no Files"},
		{"no attr", App{Name: "x", Files: testFiles(), Module: "app001", Server: Uvicorn}, "MODULE:ATTR"},
		{"bad server", App{Name: "x", Files: testFiles(), Module: "a:app", Server: "hypercorn"}, "unknown Server"},
		{"negative", App{Name: "x", Files: testFiles(), Module: "a:app", Server: Gunicorn, Workers: -1}, "negative"},
		{"uvicorn threads", App{Name: "x", Files: testFiles(), Module: "a:app", Server: Uvicorn, Threads: 2}, "no threads"},
		{"uvicorn reuse port", App{Name: "x", Files: testFiles(), Module: "a:app", Server: Uvicorn, ReusePort: true}, "--reuse-port"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := c.app.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("Validate(%s) = %v; want error containing %q", c.name, err, c.want)
			}
		})
	}
}

func TestMissingPython(t *testing.T) {
	t.Parallel()
	_, err := Detect(context.Background(), "/nonexistent/python3")
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Detect(missing) = %v; want ErrUnavailable", err)
	}
	var me *MissingError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "/nonexistent/python3") {
		t.Errorf("error %v should be a *MissingError naming the interpreter tried", err)
	}
	srv := NewServer(testApp(time.Second), Options{Python: "/nonexistent/python3"})
	if err := srv.Start(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Start with missing python = %v; want ErrUnavailable", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close after failed Start = %v", err)
	}
}

func TestMissingModule(t *testing.T) {
	env := needPython(t)
	err := env.Require("fastapi", "no_such_module_conclab")
	var me *MissingError
	if !errors.As(err, &me) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Require = %v; want *MissingError", err)
	}
	if len(me.Modules) != 1 || me.Modules[0] != "no_such_module_conclab" || me.Distributions[0] != "no_such_module_conclab" || !strings.Contains(err.Error(), "scripts/setup.sh") {
		t.Errorf("MissingError = %+v; want the one missing module and its package", me)
	}
	app := testApp(time.Second)
	app.Requires = append(app.Requires, "no_such_module_conclab")
	srv := NewServer(app, Options{})
	defer srv.Close()
	if err := srv.Start(context.Background()); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "PyPI: no_such_module_conclab") {
		t.Errorf("Start = %v; want ErrUnavailable naming the package", err)
	}
}

func TestEnvFrame(t *testing.T) {
	env := needPython(t)
	f := env.Frame()
	if f.Len() != 1 || f.Float("cpus", 0) < 1 || f.Text("version", 0) == "" {
		t.Errorf("Env.Frame() =\n%v", f)
	}
}

// get fetches url, returning the body or an error.
func get(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return string(b), fmt.Errorf("status %d", resp.StatusCode)
	}
	return string(b), err
}

// Interrupting a run — cancelling the ctx given to Start while a request is
// being served — ends every process of the server: uvicorn alone, and
// gunicorn's master with its workers.
func TestCancelMidRequestLeavesNothing(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "flask", "gunicorn")
	apps := []struct {
		app  App
		path string
	}{
		{testApp(30 * time.Second), "/block"}, // the loop itself is stuck in time.sleep
		{flaskApp(2, 2, 30*time.Second), "/sleep"},
	}
	for _, a := range apps {
		ctx, cancel := context.WithCancel(context.Background())
		srv := NewServer(a.app, Options{StopGrace: time.Second})
		if err := srv.Start(ctx); err != nil {
			cancel()
			t.Fatal(err)
		}
		pgid, dir := srv.PGID(), srv.Dir()
		members := GroupMembers(pgid)
		if want := max(a.app.Workers, 0) + 1; len(members) < want {
			t.Errorf("%s: group %d has %v; want at least %d processes", a.app.Name, pgid, members, want)
		}
		errc := make(chan error, 1)
		go func() {
			_, err := get(context.Background(), srv.URL()+a.path)
			errc <- err
		}()
		time.Sleep(500 * time.Millisecond) // the request is inside its 30 s wait
		t0 := time.Now()
		cancel()
		select {
		case err := <-errc:
			if err == nil {
				t.Errorf("%s: the interrupted request succeeded", a.app.Name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: request still pending 10 s after cancel", a.app.Name)
		}
		if err := srv.Close(); err != nil { // already closing: waits, same result
			t.Errorf("%s: Close: %v", a.app.Name, err)
		}
		if d := time.Since(t0); d > 8*time.Second {
			t.Errorf("%s: stopping took %v", a.app.Name, d)
		}
		if left := GroupMembers(pgid); len(left) > 0 {
			t.Errorf("%s: processes %v of group %d survive", a.app.Name, left, pgid)
		}
		if left := PythonProcesses(dir); len(left) > 0 {
			t.Errorf("%s: processes %v mentioning %s survive", a.app.Name, left, dir)
		}
		if _, err := get(context.Background(), srv.URL()+"/ready"); err == nil {
			t.Errorf("%s: server still answers after cancel", a.app.Name)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("%s: second Close: %v", a.app.Name, err)
		}
	}
}

// A client script interrupted mid-run dies with its process group.
func TestCancelClientScript(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	srv := startServer(t, testApp(20*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := Client{Script: Script{Files: testFiles(), Name: "clienttest.py", Args: []string{"--url", srv.URL() + "/awaited", "--n", "5"}}, Label: "x"}.Run(ctx, Options{})
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("client under a 700 ms deadline = %v; want DeadlineExceeded", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("cancelled client took %v to return", d)
	}
	time.Sleep(100 * time.Millisecond)
	if left := PythonProcesses("clienttest.py"); len(left) > 0 {
		t.Errorf("client processes %v survive", left)
	}
}

func TestStartTwiceAndCloseBeforeStart(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	srv := NewServer(testApp(time.Second), Options{})
	if err := srv.Close(); err != nil {
		t.Errorf("Close before Start = %v", err)
	}
	if err := srv.Start(context.Background()); err == nil {
		t.Error("Start after Close succeeded")
	}
	srv2 := startServer(t, testApp(time.Second))
	if err := srv2.Start(context.Background()); err == nil {
		t.Error("second Start succeeded")
	}
	if body, err := get(context.Background(), srv2.URL()+"/ready"); err != nil || !strings.Contains(body, "ok") {
		t.Errorf("GET /ready = %q, %v", body, err)
	}
}
