package s004

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
	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/bench/workload"
)

// Run is source 004 on the model, every client against every app: the
// summary (one row per client / app: bench/metrics' columns, then client,
// app, rows, order — the first letters of the rows in the order they
// landed —, in_order and vs_sync, the elapsed over the sync client on the
// sync app's) and the apps' traces (bench.TraceColumns, one strategy per
// row: whether the posts' handlers overlapped). Each pair is one bench.Run
// of the client's model (ClientModel), sent its N posts at once, posting
// to the app's model (AppModel) started beside it on a fresh database
// (MySQLDSN, or SQLite); fw is the framework's cost per request the app
// pays (zero: none; calib.Framework of this machine's calibration, as
// Versus gives it).
func (k Knobs) Run(ctx context.Context, fw pymodel.FrameworkCost) (summary, traces *frame.Frame, err error) {
	if err := k.Validate(); err != nil {
		return nil, nil, err
	}
	cpus := k.CPUs
	if cpus == 0 {
		cpus = runtime.NumCPU()
	}
	var rows []*frame.Frame
	traces = bench.TraceFrame("", trace.Snapshot{})
	traces.Name = "source 004 on the model: the apps' traces"
	for _, app := range Apps() {
		for _, client := range Clients() {
			row, tr, err := k.runPair(ctx, client, app, cpus, fw)
			if err != nil {
				return nil, nil, fmt.Errorf("s004: %s: %w", Label(client, app), err)
			}
			rows = append(rows, row)
			if traces, err = frame.Concat(traces.Name, traces, bench.TraceFrame(Label(client, app), tr)); err != nil {
				return nil, nil, err
			}
		}
	}
	f, err := frame.Concat(fmt.Sprintf("source 004 on the model: %d posts, %v an insert", k.N, k.Delay), rows...)
	if err != nil {
		return nil, nil, err
	}
	return withVsSync(f), traces, nil
}

// runPair runs one client against one app on the model.
func (k Knobs) runPair(ctx context.Context, client, app string, cpus int, fw pymodel.FrameworkCost) (*frame.Frame, trace.Snapshot, error) {
	var none trace.Snapshot
	db, err := workload.OpenDB(ctx, k.MySQLDSN)
	if err != nil {
		return nil, none, err
	}
	defer db.Close()
	as, err := AppModel(app, cpus)
	if err != nil {
		return nil, none, err
	}
	as.Python.Framework = fw
	insert := []pymodel.Step{pymodel.Sleep(k.Delay), pymodel.DBInsertField(db, "email")}
	srv, err := as.Start(ctx, pymodel.Workload{Name: app, Steps: insert}, strategy.StartOptions{TraceEvents: trace.DefaultCap})
	if err != nil {
		return nil, none, err
	}
	defer srv.Close()
	cs, err := ClientModel(client, app, cpus)
	if err != nil {
		return nil, none, err
	}
	post, closePost := postStep(srv.URL()+"/users", Emails(k.N))
	defer closePost()
	res, err := bench.Run(ctx, bench.Experiment{
		Name:        Label(client, app),
		Strategies:  []strategy.Strategy{cs},
		Workload:    pymodel.Workload{Name: "POST /users", Steps: []pymodel.Step{post}},
		Load:        load.Burst{N: k.N},
		TraceEvents: -1,
		Progress:    func(bench.Progress) {},
	})
	if err != nil {
		return nil, none, err
	}
	tr, err := srv.Trace()
	if err != nil {
		return nil, none, err
	}
	rows, err := db.Rows(ctx)
	if err != nil {
		return nil, none, err
	}
	got := rows.Texts("value")
	if e := res.Value(cs.Label(), "errors"); e > 0 || len(got) != k.N {
		return nil, none, fmt.Errorf("%v of %d posts failed (%s), %d rows landed", e, k.N, res.Summary.Text("error_kinds", 0), len(got))
	}
	row, err := columns(res.Summary.With("client", ClientLabel(client)).With("app", app),
		"rows", len(got), "order", firstLetters(got), "in_order", equal(got, Emails(k.N)))
	return row, tr, err
}

// postStep is a client's post as a model step: each call posts the next
// of emails (with its password) to url, in the order the calls run —
// how the real clients number their users is the order they send them.
func postStep(url string, emails []string) (pymodel.Step, func()) {
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: len(emails), MaxIdleConns: len(emails)}
	hc := &http.Client{Transport: tr, Timeout: time.Minute}
	var next atomic.Int64
	s := pymodel.Custom("requests.post /users", true, func(ctx context.Context) error {
		i := int(next.Add(1) - 1)
		if i >= len(emails) {
			return errors.New("more posts than users")
		}
		return postUser(ctx, hc, url, emails[i])
	})
	return s, tr.CloseIdleConnections
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

// App is an app's real app under uvicorn on db (nil: SQLite), delay
// inside each insert.
func App(app string, db *cpython.DB, delay time.Duration) (cpython.App, error) {
	if db == nil {
		db = &cpython.DB{}
	}
	a := cpython.App{Name: app, Files: Files(), Server: cpython.Uvicorn, DB: db,
		Env:      map[string]string{"CONCLAB_DB_DELAY_S": strconv.FormatFloat(delay.Seconds(), 'f', -1, 64)},
		Requires: append(append([]string(nil), cpython.FastAPIModules...), "pymysql")}
	switch app {
	case SyncApp:
		a.Module = "app004_sync:app"
	case AsyncApp:
		a.Module = "app004_async:app"
		a.Requires = append(a.Requires, "aiomysql")
	default:
		return cpython.App{}, fmt.Errorf("s004: unknown app %q (want one of %v)", app, Apps())
	}
	return a, nil
}

// RunClient runs one of the source's clients (client004.py) against base
// (a server running App): it empties the table, posts n users, then reads
// the table. Its row ("real CLIENT / APP", through bench/metrics) adds
// rows, order (the first letters in table order) and in_order.
func RunClient(ctx context.Context, o cpython.Options, base, client, app string, n int) (*frame.Frame, error) {
	if n < 1 || n > 1000 {
		return nil, fmt.Errorf("s004: RunClient: n must be in 1..1000, got %d", n)
	}
	mods := []string{"requests"}
	switch client {
	case SyncClient, FakeAsyncClient:
	case AiohttpClient:
		mods = append(mods, "aiohttp")
	default:
		return nil, fmt.Errorf("s004: unknown client %q (want one of %v)", client, Clients())
	}
	f, err := cpython.Client{
		Script: cpython.Script{Files: Files(), Name: "client004.py", Requires: mods,
			Args: []string{"--base", base, "--mode", client, "--n", strconv.Itoa(n)}},
		Label: cpython.RealPrefix + Label(client, app), Load: strconv.Itoa(n) + " posts",
	}.Run(ctx, o)
	if err != nil {
		return nil, err
	}
	if e, rows := f.Float("errors", 0), f.Float("rows", 0); e > 0 || rows != float64(n) {
		return nil, fmt.Errorf("s004: %s (real): %v of %d posts failed (%s), %v rows landed", Label(client, app), e, n, f.Text("error_kinds", 0), rows)
	}
	return f.With("client", ClientLabel(client)).With("app", app), nil
}

// Real runs every client against every real app (on this machine's
// CPython), each app on its own server: rows "real CLIENT / APP".
func (k Knobs) Real(ctx context.Context, o cpython.Options) (*frame.Frame, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	var rows []*frame.Frame
	for _, app := range Apps() {
		a, err := App(app, &cpython.DB{MySQLDSN: k.MySQLDSN}, k.Delay)
		if err != nil {
			return nil, err
		}
		srv := cpython.NewServer(a, o)
		if err := srv.Start(ctx); err != nil {
			return nil, err
		}
		for _, client := range Clients() {
			r, err := RunClient(ctx, o, srv.URL(), client, app, k.N)
			if err != nil {
				srv.Close()
				return nil, err
			}
			rows = append(rows, r)
		}
		if err := srv.Close(); err != nil {
			return nil, err
		}
	}
	f, err := frame.Concat(fmt.Sprintf("source 004: %d posts by the real clients", k.N), rows...)
	if err != nil {
		return nil, err
	}
	return withVsSync(f), nil
}

// Versus is source 004 on the model (Run, the apps paying this machine's
// framework costs from its calibration: calib.Machine) and for real
// (Real): one frame with model rows "X" and real rows "real X", each with
// rows, order and in_order, for lab.ModelVsRealOf, and the model's apps'
// traces. A missing interpreter or package is a *cpython.MissingError.
func (k Knobs) Versus(ctx context.Context, o cpython.Options) (summary, traces *frame.Frame, err error) {
	env, err := cpython.Detect(ctx, o.Python)
	if err != nil {
		return nil, nil, err
	}
	if err := env.Require("fastapi", "uvicorn", "requests", "aiohttp", "pymysql", "aiomysql"); err != nil {
		return nil, nil, err
	}
	if k.CPUs == 0 {
		k.CPUs = env.CPUs
	}
	t, err := calib.Machine(ctx, o.Python, calib.FrameworkPart)
	if err != nil {
		return nil, nil, err
	}
	fw, err := calib.Framework(t)
	if err != nil {
		return nil, nil, err
	}
	model, traces, err := k.Run(ctx, fw)
	if err != nil {
		return nil, nil, err
	}
	real, err := k.Real(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	f, err := frame.Concat(fmt.Sprintf("source 004: %d posts, model vs real CPython", k.N), model, real)
	return f, traces, err
}

// withVsSync adds vs_sync: elapsed_s over the sync client on the sync app
// of the same side (model rows over the model's, "real ..." over the real
// one's).
func withVsSync(f *frame.Frame) *frame.Frame {
	base := map[bool]float64{}
	sync := Label(SyncClient, SyncApp)
	for i := 0; i < f.Len(); i++ {
		switch f.Text("strategy", i) {
		case sync:
			base[false] = f.Float("elapsed_s", i)
		case cpython.RealPrefix + sync:
			base[true] = f.Float("elapsed_s", i)
		}
	}
	g, err := f.Compute("vs_sync", func(r frame.Row) any {
		if b := base[strings.HasPrefix(r.Text("strategy"), cpython.RealPrefix)]; b > 0 {
			return r.Float("elapsed_s") / b
		}
		return nil
	})
	if err != nil {
		return f // a frame without elapsed_s: nothing to compare
	}
	return g
}

// columns sets columns of every row of f to values: name, value, ...
func columns(f *frame.Frame, kv ...any) (*frame.Frame, error) {
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		if b, ok := v.(bool); ok {
			v = 0
			if b {
				v = 1
			}
		}
		var err error
		if f, err = f.Compute(kv[i].(string), func(frame.Row) any { return v }); err != nil {
			return nil, err
		}
	}
	return f, nil
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

func equal(a, b []string) bool {
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
