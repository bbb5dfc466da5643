package cpython

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/metrics"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/bench/workload"
)

// Clients004 are source 004's clients in the source's order.
var Clients004 = []string{SyncClient, FakeAsyncClient, AiohttpClient}

// Apps004 are source 004's apps: the model presets and App004's names.
var Apps004 = []string{"sync app", "async app"}

// Label004 is the row label of one source-004 run, "CLIENT / APP", as in
// the source's table ("sync client / sync app", "aiohttp client / async
// app", ...).
func Label004(client, app string) string { return Client004Label(client) + " / " + app }

// Emails004 are the values source 004's clients post, in the order sent:
// A@A ... Z@Z, then AA@AA ... (as client004.py makes them).
func Emails004(n int) []string {
	out := make([]string, max(n, 0))
	for i := range out {
		c := strings.Repeat(string(rune('A'+i%26)), 1+i/26)
		out[i] = c + "@" + c
	}
	return out
}

// Model004 runs source 004 on the model: for each app of Apps004, a
// bench/strategy server ("sync app": a def handler on the thread pool;
// "async app": an async def handler awaiting its I/O) whose handler waits
// delay (blocking or awaited: the source's slow database) and inserts the
// posted email into a fresh run of the database dsn (workload.OpenDB: ""
// is SQLite); and for each client of Clients004, a modelled Python client
// posting n users over HTTP — one thread in a for loop (sync), coroutines
// on one event loop around a blocking call (the "async" client that never
// awaits), or coroutines awaiting each post (aiohttp). Rows: strategy
// (Label004), client, app, load, the latency columns, elapsed_s, rows,
// order (the first letters of the rows in arrival order), in_order (1 when
// they landed as sent) and vs_sync (elapsed over the sync client on the
// sync app).
func Model004(ctx context.Context, dsn string, delay time.Duration, n int) (*frame.Frame, error) {
	f, _, err := model004(ctx, dsn, delay, n, 0, false, nil)
	return f, err
}

// Model004Traced is Model004 that also returns the app servers' traces
// (bench.TraceColumns, one strategy per row of the summary): whether the
// posts' handlers overlapped, next to the order the rows landed in.
func Model004Traced(ctx context.Context, dsn string, delay time.Duration, n int) (summary, traces *frame.Frame, err error) {
	return model004(ctx, dsn, delay, n, 0, true, nil)
}

// model004 runs the model's six rows; with costs its apps pay the
// framework's cost per request.
func model004(ctx context.Context, dsn string, delay time.Duration, n, cpus int, traced bool, costs *Framework) (*frame.Frame, *frame.Frame, error) {
	if cpus == 0 {
		cpus = runtime.NumCPU()
	}
	if n <= 0 || n > 1000 {
		return nil, nil, fmt.Errorf("cpython: Model004: n must be in 1..1000, got %d", n)
	}
	if delay < 0 || delay > time.Minute {
		return nil, nil, fmt.Errorf("cpython: Model004: delay must be in 0..1m, got %v", delay)
	}
	var out *frame.Frame
	traces := bench.TraceFrame("", trace.Snapshot{})
	traces.Name = "source 004 on the model: trace"
	for _, app := range Apps004 {
		for _, client := range Clients004 {
			row, tr, err := runModel004(ctx, dsn, app, client, delay, n, cpus, traced, costs)
			if err != nil {
				return nil, nil, err
			}
			if out == nil {
				out = row
			} else if out, err = frame.Concat(out.Name, out, row); err != nil {
				return nil, nil, err
			}
			if traced {
				if traces, err = frame.Concat(traces.Name, traces, bench.TraceFrame(Label004(client, app), tr)); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if !traced {
		traces = nil
	}
	out.Name = "source 004 on the model"
	return withVsSync(out), traces, nil
}

// withVsSync adds vs_sync: elapsed_s over the sync client on the sync app
// of the same side (model rows over the model's, "real ..." rows over the
// real one's).
func withVsSync(f *frame.Frame) *frame.Frame {
	base := map[bool]float64{}
	sync := Label004(SyncClient, Apps004[0])
	for i := 0; i < f.Len(); i++ {
		switch f.Text("strategy", i) {
		case sync:
			base[false] = f.Float("elapsed_s", i)
		case RealPrefix + sync:
			base[true] = f.Float("elapsed_s", i)
		}
	}
	return extend(f, func(i int, r frame.Row) {
		if b := base[strings.HasPrefix(f.Text("strategy", i), RealPrefix)]; b > 0 {
			r["vs_sync"] = f.Float("elapsed_s", i) / b
		}
	})
}

func runModel004(ctx context.Context, dsn, app, client string, delay time.Duration, n, cpus int, traced bool, costs *Framework) (*frame.Frame, trace.Snapshot, error) {
	var none trace.Snapshot
	db, err := workload.OpenDB(ctx, dsn)
	if err != nil {
		return nil, none, fmt.Errorf("cpython: Model004: %w", err)
	}
	defer db.Close()
	st, err := strategy.Preset(app)
	if err != nil {
		return nil, none, fmt.Errorf("cpython: Model004: %w", err)
	}
	if u, ok := st.(strategy.Uvicorn); ok && costs != nil {
		u.Python.Framework = costs.Cost
		st = u
	}
	var steps []pymodel.Step
	if delay > 0 {
		steps = append(steps, pymodel.Sleep(delay))
	}
	steps = append(steps, pymodel.DBInsertField(db, "email"))
	label := Label004(client, app)
	traceEvents := 0
	if traced {
		traceEvents = trace.DefaultCap
	}
	srv, err := st.Start(ctx, pymodel.Workload{Name: app, Steps: steps}, strategy.StartOptions{TraceEvents: traceEvents})
	if err != nil {
		return nil, none, fmt.Errorf("cpython: Model004: %s: %w", label, err)
	}
	defer srv.Close()
	cfg, h, closeClient, err := client004Model(client, srv.URL()+"/users", n, cpus)
	if err != nil {
		return nil, none, err
	}
	defer closeClient()
	res, err := modelClient(ctx, cfg, h, n, map[string]string{
		metrics.LabelStrategy: label, metrics.LabelWorkload: "client", metrics.LabelLoad: strconv.Itoa(n) + " posts"})
	if err != nil {
		return nil, none, fmt.Errorf("cpython: Model004: %s: %w", label, err)
	}
	m := res.Summary()
	tr, err := srv.Trace()
	if err != nil {
		return nil, none, fmt.Errorf("cpython: Model004: %s: %w", label, err)
	}
	rows, err := db.Rows(ctx)
	if err != nil {
		return nil, none, fmt.Errorf("cpython: Model004: %s: %w", label, err)
	}
	got := rows.Texts("value")
	if e := res.Errors(); e > 0 || len(got) != n {
		return nil, none, fmt.Errorf("cpython: Model004: %s: %v of %d posts failed (%s), %d rows landed", label, e, n, strings.Join(res.ErrorSamples, "; "), len(got))
	}
	return extend(m.With("client", Client004Label(client)).With("app", app), func(_ int, r frame.Row) {
		r["rows"] = len(got)
		r["order"] = firstLetters(got)
		r["in_order"] = equalStrings(got, Emails004(n))
	}), tr, nil
}

// client004Model is a source-004 client as a modelled Python process whose
// every "request" is one POST of the next user to url.
func client004Model(client, url string, n, cpus int) (pymodel.Config, pymodel.Handler, func(), error) {
	emails := Emails004(n)
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: n, MaxIdleConns: n}
	hc := &http.Client{Transport: tr, Timeout: time.Minute}
	var next atomic.Int64
	post := pymodel.Custom("post", true, func(ctx context.Context) error {
		i := int(next.Add(1) - 1)
		if i >= len(emails) {
			return errors.New("more posts than users")
		}
		return postUser(ctx, hc, url, emails[i])
	})
	var cfg pymodel.Config
	h := pymodel.Handler{Name: "post user", Steps: []pymodel.Step{post}}
	switch client {
	case SyncClient: // for user in users: requests.post(...)
		cfg = pymodel.Config{Mode: pymodel.WSGI, Threads: 1, CPUs: cpus}
	case FakeAsyncClient: // async def send(): requests.post(...) — never yields
		h.Async = true
		h.Steps[0].Call = pymodel.Block
		cfg = pymodel.Config{CPUs: cpus}
	case AiohttpClient: // async with session.post(...) — awaited
		h.Async = true
		h.Steps[0].Call = pymodel.Await
		cfg = pymodel.Config{CPUs: cpus}
	default:
		return cfg, h, nil, fmt.Errorf("cpython: unknown source-004 client %q (want %q, %q or %q)", client, SyncClient, FakeAsyncClient, AiohttpClient)
	}
	return cfg, h, tr.CloseIdleConnections, nil
}

// postUser posts {"email": email, "password": ...} to url and reads the
// answer; a status other than 200 is an error.
func postUser(ctx context.Context, hc *http.Client, url, email string) error {
	body, _ := json.Marshal(map[string]string{"email": email, "password": "password" + strings.SplitN(email, "@", 2)[0]})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", url, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

func firstLetters(values []string) string {
	var b strings.Builder
	for _, v := range values {
		if v != "" {
			b.WriteByte(v[0])
		}
	}
	return b.String()
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkRun004 fails a client run with failed posts or missing rows.
func checkRun004(f *frame.Frame, n int) error {
	if e, rows := f.Float("errors", 0), f.Float("rows", 0); e > 0 || rows != float64(n) {
		return fmt.Errorf("%v of %d posts failed (%s), %v rows landed", e, n, f.Text("error_kinds", 0), rows)
	}
	return nil
}

// Versus004 is source 004 model vs real: every client against every app
// on the model (Model004 on db's database) and for real — App004 (sync and
// async) on db (nil: SQLite) with delay inside each insert, each of the
// source's clients a Python process (client004.py) posting n users, rows
// "real " + Label004 — every figure recorded through bench/metrics. The
// frame holds the model rows then the real ones, each with rows, order and
// in_order, for lab.ModelVsRealOf and the shape checks. A run with failed
// posts or missing rows, on either side, is an error naming the client,
// the app and the side. As for source 002 the clients' own code makes the
// load, so this is not one bench.Run. The model's apps pay this machine's
// framework costs (MachineCalibration: measured once, then read from the
// calibration file).
func Versus004(ctx context.Context, opts Options, db *DB, delay time.Duration, n int) (*frame.Frame, error) {
	if n <= 0 || n > 1000 || delay <= 0 || delay > time.Minute {
		return nil, fmt.Errorf("cpython: Versus004: need n in 1..1000 and delay in (0, 1m], got %d and %v", n, delay)
	}
	if db == nil {
		db = &DB{}
	}
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	mods := []string{"requests", "aiohttp"}
	mods = append(mods, App004(true, db, delay).Requires...)
	if err := env.Require(mods...); err != nil {
		return nil, err
	}
	// The model pays this machine's framework costs, as the real apps do.
	cal, err := MachineCalibration(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	model, _, err := model004(ctx, db.MySQLDSN, delay, n, env.CPUs, false, cal.Costs())
	if err != nil {
		return nil, err
	}
	frames := []*frame.Frame{model}
	for i, app := range Apps004 {
		srv := NewServer(App004(i == 1, db, delay), opts)
		if err := srv.Start(ctx); err != nil {
			return nil, err
		}
		for _, client := range Clients004 {
			label := Label004(client, app)
			r, err := Client004(ctx, opts, srv.URL(), client, n)
			if err == nil {
				err = checkRun004(r, n)
			}
			if err != nil {
				srv.Close()
				return nil, fmt.Errorf("cpython: Versus004: %s (real): %w", label, err)
			}
			frames = append(frames, r.With("strategy", RealPrefix+label).With("app", app))
		}
		if err := srv.Close(); err != nil {
			return nil, err
		}
	}
	f, err := frame.Concat("source 004: model vs real CPython", frames...)
	if err != nil {
		return nil, err
	}
	return env.Describe(withVsSync(f)), nil
}
