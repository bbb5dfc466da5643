package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for one writer and a polling reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServeRunsUntilCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		code, _ := runServe(ctx, []string{"--strategy", "/async-block", "--workload", "sleep=100ms"}, &out, io.Discard)
		done <- code
	}()
	re := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	var url string
	for i := 0; i < 100 && url == ""; i++ {
		url = re.FindString(out.String())
		time.Sleep(20 * time.Millisecond)
	}
	if url == "" {
		t.Fatalf("no URL in output %q", out.String())
	}
	resp, err := http.Get(url + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Service-Ms") == "" {
		t.Error("response lacks X-Service-Ms")
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d", code)
	}
	if s := out.String(); !strings.Contains(s, "served 1 requests") || !strings.Contains(s, "Executing <Task /x> took") {
		t.Errorf("output lacks the figures or the slow-callback warning:\n%s", s)
	}
	if _, err := http.Get(url + "/health"); err == nil {
		t.Error("server still answers after the command returned")
	}
}

func TestServeBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--strategy", "uwsgi", "--workload", "sleep=1s"}, "unknown preset"},
		{[]string{"--strategy", "sync", "--workload", "sleep=0s"}, "duration must be positive"},
		{[]string{"--strategy", "sync", "--workload", "nap=1s"}, `unknown workload step kind "nap"`},
		{[]string{"--strategy", "sync"}, "required"},
		{[]string{"--strategy", "sync", "--workload", "sleep=1s", "--addr", "127.0.0.1:99999"}, "99999"},
		{[]string{"--strategy", "sync", "--workload", "sleep=1s", "extra"}, "unexpected"},
		{[]string{"--strategy", "sync", "--workload", "none", "--addr", "0.0.0.0:8000"}, "listens on every interface"},
		{[]string{"--strategy", "sync", "--workload", "none", "--addr", ":8000"}, "listens on every interface"},
		{[]string{"--strategy", "sync", "--workload", "none", "--addr", "[::]:8000"}, "listens on every interface"},
		{[]string{"--strategy", "sync", "--workload", "none", "--addr", "192.0.2.1:8000"}, "not a loopback address"},
		{[]string{"--strategy", "sync", "--workload", "none", "--addr", "8000"}, "want HOST:PORT"},
	} {
		code, err := runServe(context.Background(), c.args, io.Discard, io.Discard)
		if code == 0 || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %q: code %d, err %v; want an error mentioning %q", c.args, code, err, c.want)
		}
	}
}

func TestServeList(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code, err := runServe(context.Background(), []string{"--list"}, &out, io.Discard); code != 0 || err != nil {
		t.Fatal(code, err)
	}
	for _, name := range []string{"/async-block", "flask 1w x 5t", "gunicorn 2w x 5t", "goroutines", "ProcessPool"} {
		if !strings.Contains(out.String(), name+":") {
			t.Errorf("--list lacks %q", name)
		}
	}
	// Each line describes its family's configuration.
	for _, line := range []string{"/async-block: uvicorn 1w, limiter 40, async def, io block, 8 CPUs\n", "flask 2w x 5t: gunicorn 2w x 5t, def\n", "bounded 10: bounded 10\n"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("--list lacks the line %q:\n%s", line, out.String())
		}
	}
}

// A prefork strategy serves a workload of the lab's own step kinds: the
// worker processes are sent the strategy and parse the image step too.
func TestServePreforkImage(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		code, _ := runServe(ctx, []string{"--strategy", "gunicorn 2w x 5t", "--workload", "image=png"}, &out, io.Discard)
		done <- code
	}()
	re := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	var url string
	for i := 0; i < 500 && url == ""; i++ {
		url = re.FindString(out.String())
		time.Sleep(20 * time.Millisecond)
	}
	if url == "" {
		cancel()
		t.Fatalf("no URL in output %q", out.String())
	}
	if !strings.Contains(out.String(), "serving gunicorn 2w x 5t: gunicorn 2w x 5t, def with workload image=png") {
		t.Errorf("output %q does not name the strategy and workload", out.String())
	}
	for i := 0; i < 3; i++ {
		resp, err := http.Get(url + "/upload")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET /upload: %s %s", resp.Status, body)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d", code)
	}
	if s := out.String(); !strings.Contains(s, "served 3 requests (0 errors)") {
		t.Errorf("output lacks the figures:\n%s", s)
	}
}

func TestCheckListenAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true},
		{"127.0.0.2:8000", false, true},
		{"[::1]:8000", false, true},
		{"localhost:8000", false, true},
		{":8000", false, false},
		{"0.0.0.0:8000", false, false},
		{"[::]:8000", false, false},
		{"10.1.2.3:8000", false, false},
		{"0.0.0.0:8000", true, true},
		{":8000", true, true},
		{"127.0.0.1:70000", true, false},
		{"nocolon", true, false},
	} {
		err := checkListenAddr(context.Background(), tc.addr, tc.remote)
		if (err == nil) != tc.ok {
			t.Errorf("checkListenAddr(%q, allowRemote=%v) = %v; want ok=%v", tc.addr, tc.remote, err, tc.ok)
		}
	}
}
