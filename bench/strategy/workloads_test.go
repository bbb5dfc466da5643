package strategy_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/workload"
)

func post(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// pngWorkload is the small test PNG and the workload "image=png".
func pngWorkload(t *testing.T) ([]byte, pymodel.Workload) {
	t.Helper()
	png, err := workload.LoadImage(context.Background(), workload.SmallPNG())
	if err != nil {
		t.Fatal(err)
	}
	w, err := pymodel.ParseWorkload("image=png")
	if err != nil {
		t.Fatal(err)
	}
	return png, w
}

// The image step runs on an upload, in process and in a process pool (the
// image bytes through the pipe both ways); a body that does not decode is a
// clear error.
func TestImageStep(t *testing.T) {
	t.Parallel()
	png, w := pngWorkload(t)
	for _, name := range []string{"sync", "ProcessPool", "goroutines"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := start(t, preset(t, name), w)
			req, err := workload.NewUploadRequest(context.Background(), srv.URL()+"/upload", "a.png", png)
			if err != nil {
				t.Fatal(err)
			}
			if code, body := post(t, req); code != 200 {
				t.Fatalf("upload: %d %s", code, body)
			}
			// No upload: the step uses the generated test image.
			resp, err := http.Get(srv.URL() + "/upload")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("GET: status %d", resp.StatusCode)
			}
			req, _ = workload.NewUploadRequest(context.Background(), srv.URL()+"/upload", "bad.png", []byte("not an image"))
			if code, body := post(t, req); code != 500 || !strings.Contains(body, "image") {
				t.Errorf("bad image: %d %q; want 500 naming the image", code, body)
			}
			st := srv.Stats()
			if name == "ProcessPool" && (st.PoolTasks != 3 || st.IPCBytes < int64(2*len(png))) {
				t.Errorf("process pool stats %+v; want 3 tasks and the image through the pipes", st)
			}
		})
	}
	if _, err := pymodel.ParseWorkload("image=gif9k"); err == nil || !strings.Contains(err.Error(), "gif9k") {
		t.Errorf("unknown test image: err = %v", err)
	}
}

// Database inserts through each backend available; rows record arrival
// order.
func TestDBInsertStep(t *testing.T) {
	t.Parallel()
	dsns := map[string]string{"sqlite": ""}
	if d := os.Getenv("CONCLAB_MYSQL_DSN"); d != "" {
		dsns["mysql"] = d
	}
	if d := os.Getenv("CONCLAB_PG_DSN"); d != "" {
		dsns["postgres"] = d
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := workload.OpenDB(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			srv := start(t, preset(t, "sync"), pymodel.Workload{Steps: []pymodel.Step{strategy.DBInsert(db, "r")}})
			burst(t, srv.URL(), 5)
			srv.Close()
			if n, err := db.Count(ctx); err != nil || n != 5 {
				t.Errorf("rows = %d, %v; want 5", n, err)
			}
		})
	}
	if _, err := workload.OpenDB(context.Background(), "mysql://nobody:x@127.0.0.1:1/none"); err == nil {
		t.Error("a DSN that cannot connect: want an error")
	}
}

func TestPrintAndDownstreamSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sink, err := workload.DevNullSink()
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	p, err := workload.NewPrinter("sync", sink, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ds, err := workload.StartDownstream(ctx, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	w := pymodel.Workload{Steps: []pymodel.Step{
		strategy.Print(p, 3, "hello"),
		strategy.Downstream(workload.FanOut{URL: ds.HealthURL(), Calls: 4, Mode: workload.FanAll}),
	}}
	srv := start(t, preset(t, "asyncio"), w)
	// Awaited downstream calls overlap on the loop: 4 requests ≈ 1 wait.
	begin := time.Now()
	burst(t, srv.URL(), 4)
	if d := time.Since(begin); d > 300*time.Millisecond {
		t.Errorf("4 requests with awaited downstream calls took %v; want ≈ 100 ms", d)
	}
	if st := p.Stats(); st.Lines != 12 || st.Writes != 12 {
		t.Errorf("print stats %+v; want 12 lines in 12 writes", st)
	}
	if ds.Calls() != 16 {
		t.Errorf("downstream calls = %d; want 16", ds.Calls())
	}
	_ = bytes.MinRead
}

// DBInsertField inserts the value the request posts, so rows carry the
// client's own order; a body without the value fails the request.
func TestDBInsertFieldStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := workload.OpenDB(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := start(t, preset(t, "async app"), pymodel.Workload{Steps: []pymodel.Step{strategy.DBInsertField(db, "email")}})
	for _, tc := range []struct {
		body string
		want int
	}{
		{`{"email": "A@A", "password": "x"}`, http.StatusOK},
		{`{"email": "B@B"}`, http.StatusOK},
		{`{"password": "x"}`, http.StatusInternalServerError},
		{`not json`, http.StatusInternalServerError},
		{`{"email": {"nested": 1}}`, http.StatusInternalServerError},
		{``, http.StatusInternalServerError},
	} {
		resp, err := http.Post(srv.URL()+"/users", "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("POST %q: %s (%s), want %d", tc.body, resp.Status, strings.TrimSpace(string(msg)), tc.want)
		}
	}
	srv.Close()
	rows, err := db.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows.Texts("value"), ","); got != "A@A,B@B" {
		t.Errorf("rows = %q, want A@A,B@B", got)
	}
}

// The image step saves each result in the server's temp dir — in process,
// from a process-pool worker and from prefork children — and Close removes
// it.
func TestImageStepSavesAndCleansUp(t *testing.T) {
	// Not parallel: it points $TMPDIR at a directory of its own.
	png, w := pngWorkload(t)
	for _, name := range []string{"sync", "ProcessPool", "goroutines", "gunicorn 2w x 5t"} {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			srv, err := preset(t, name).Start(context.Background(), w, strategy.StartOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			const n = 3
			for i := 0; i < n; i++ {
				req, err := workload.NewUploadRequest(context.Background(), srv.URL()+"/upload", "a.png", png)
				if err != nil {
					t.Fatal(err)
				}
				if code, body := post(t, req); code != 200 {
					t.Fatalf("upload: %d %s", code, body)
				}
			}
			// One directory, the server's: pool workers and prefork
			// children write into it, so Close removes everything even
			// when it has to kill a child.
			if dirs, _ := filepath.Glob(filepath.Join(tmp, "conclab-images-*")); len(dirs) != 1 {
				t.Errorf("image directories %v; want exactly one", dirs)
			}
			saved, err := filepath.Glob(filepath.Join(tmp, "conclab-images-*", "out-*.png"))
			if err != nil {
				t.Fatal(err)
			}
			if len(saved) != n {
				t.Errorf("saved %d images (%v); want %d", len(saved), saved, n)
			}
			for _, f := range saved {
				b, err := os.ReadFile(f)
				if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
					t.Errorf("%s: not a PNG (%d bytes, %v)", f, len(b), err)
				}
			}
			if err := srv.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left in $TMPDIR after Close: %v", left)
			}
		})
	}
}
