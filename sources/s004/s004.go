// Package s004 is source 004, "asyncio done right, with pytest, part 2" (a
// blog): a client posts 26 users (A@A ... Z@Z) to an app that inserts each
// into MySQL, and the order of the rows says whether the posts overlapped.
// The clients: a sync for-loop of requests.post; "async" coroutines that
// call requests.post without awaiting anything (the trap: they run one
// after another); aiohttp posts gathered. The apps: a def handler with a
// sync driver; an async def with an async driver.
//
// On the model a client is a modelled Python process, a strategy like any
// server's (Client.Model): each post is a request bench.Run sends it (its
// N posts at once), and its body posts the next user to the app's model
// server (App.Model, started beside it), whose handler waits Delay and
// inserts the posted email into a fresh database. For real, the source's
// clients are Python processes (client004.py) against the real apps.
//
// The shape of every source package (see sources/s001): Files, Code,
// Knobs and Default, the models as literals, Model / Versus, Estimate,
// Checks and Table.
package s004

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

//go:embed py/*.py
var py embed.FS

// Files are the source's Python files: app004_sync.py, app004_async.py
// and client004.py.
func Files() fs.FS {
	sub, _ := fs.Sub(py, "py")
	return sub
}

// Code returns one of Files' texts ("client004.py").
func Code(name string) (string, error) { return cpython.Code(Files(), name) }

// The clients (client004.py's modes).
const (
	SyncClient      = "sync"      // for user in users: requests.post(...)
	FakeAsyncClient = "fakeasync" // async def send(): requests.post(...), gathered — never yields
	AiohttpClient   = "aiohttp"   // async with session.post(...), gathered — awaited
)

// The apps.
const (
	SyncApp  = "sync app"  // def create_user(): a sync driver, on AnyIO's threads
	AsyncApp = "async app" // async def create_user(): await an async driver
)

// Clients and Apps are the source's, in its order.
func Clients() []string { return []string{SyncClient, FakeAsyncClient, AiohttpClient} }
func Apps() []string    { return []string{SyncApp, AsyncApp} }

// ClientLabel is a client's name in the rows: "sync client", "async def +
// requests", "aiohttp client".
func ClientLabel(client string) string {
	switch client {
	case SyncClient:
		return "sync client"
	case FakeAsyncClient:
		return "async def + requests"
	case AiohttpClient:
		return "aiohttp client"
	}
	return client
}

// Label is a run's row name, "CLIENT / APP", as in the source's table.
func Label(client, app string) string { return ClientLabel(client) + " / " + app }

// ClientModel is a client as a modelled Python process, a literal of its
// Python:
//
//	for user in users: requests.post(...)          Uvicorn{Limiter: 1}: one thread, one post at a time
//	async def send(u): requests.post(...); gather  Uvicorn{Async, IOCall: Block}: one loop, each post blocking it
//	async def send(u): await session.post(...)     Uvicorn{Async, IOCall: Await}: one loop awaiting every post
//
// labelled "CLIENT / APP"; its posts arrive all at once (bench.Run's
// burst) and run as the client's code runs them.
func ClientModel(client, app string, cpus int) (strategy.Strategy, error) {
	py := strategy.Python{CPUs: cpus}
	l := Label(client, app)
	switch client {
	case SyncClient:
		return strategy.Uvicorn{Name: l, Limiter: 1, IOCall: pymodel.Block, Python: py}, nil
	case FakeAsyncClient:
		return strategy.Uvicorn{Name: l, Async: true, IOCall: pymodel.Block, Python: py}, nil
	case AiohttpClient:
		return strategy.Uvicorn{Name: l, Async: true, IOCall: pymodel.Await, Python: py}, nil
	}
	return nil, fmt.Errorf("s004: unknown client %q (want one of %v)", client, Clients())
}

// AppModel is an app's model, a literal of its Python (the registry's
// presets of the same names):
//
//	@app.post("/users") def create_user(...): db.insert(...)        on AnyIO's 40 tokens
//	@app.post("/users") async def create_user(...): await db.insert  on the loop, awaiting
func AppModel(app string, cpus int) (strategy.Uvicorn, error) {
	py := strategy.Python{CPUs: cpus}
	switch app {
	case SyncApp:
		return strategy.Uvicorn{Name: SyncApp, Limiter: pymodel.DefaultLimiter, IOCall: pymodel.Block, Python: py}, nil
	case AsyncApp:
		return strategy.Uvicorn{Name: AsyncApp, Limiter: pymodel.DefaultLimiter, Async: true, IOCall: pymodel.Await, Python: py}, nil
	}
	return strategy.Uvicorn{}, fmt.Errorf("s004: unknown app %q (want one of %v)", app, Apps())
}

// Knobs are the experiment's settings. Default is the source's.
type Knobs struct {
	// N users posted (the source: 26, A@A ... Z@Z).
	N int
	// Delay is the database's time per insert, a wait inside each insert
	// (blocking in the sync app, awaited in the async one): the source's
	// sync client on the sync app took about 18 s for 26 posts, 0.69 s a
	// post (its Docker MySQL; it does not say what made it slow).
	Delay time.Duration
	// MySQLDSN, when set, is the database (go-sql-driver form, as
	// $CONCLAB_MYSQL_DSN); "" is SQLite.
	MySQLDSN string
	// CPUs is the modelled os.cpu_count() of the client and the app (0:
	// this machine's).
	CPUs int
}

// Default is the source's: 26 posts, 0.69 s a post, SQLite (the source's
// MySQL when MySQLDSN is set).
var Default = Knobs{N: 26, Delay: 690 * time.Millisecond}

// Validate reports a knob out of range, naming it.
func (k Knobs) Validate() error {
	switch {
	case k.N < 1 || k.N > 1000:
		return fmt.Errorf("s004: N must be in 1..1000, got %d", k.N)
	case k.Delay <= 0 || k.Delay > time.Minute:
		return fmt.Errorf("s004: Delay must be in (0, 1m], got %v", k.Delay)
	case k.CPUs < 0:
		return fmt.Errorf("s004: CPUs must not be negative, got %d", k.CPUs)
	}
	return nil
}

// Emails are the values the clients post, in the order sent: A@A ...
// Z@Z, then AA@AA ... (as client004.py makes them).
func Emails(n int) []string {
	out := make([]string, max(n, 0))
	for i := range out {
		c := strings.Repeat(string(rune('A'+i%26)), 1+i/26)
		out[i] = c + "@" + c
	}
	return out
}

// Waves is how many inserts one after another a client's posts take on an
// app: one at a time from the sync and the blocking "async" clients;
// aiohttp's all at once, on the sync app as many at once as AnyIO's 40
// tokens.
func (k Knobs) Waves(client, app string) int {
	if client != AiohttpClient {
		return k.N
	}
	if app == SyncApp {
		return (k.N + pymodel.DefaultLimiter - 1) / pymodel.DefaultLimiter
	}
	return 1
}

// Estimate is the arithmetic's prediction for each client and app:
// strategy, waves, elapsed_s (waves × Delay), in_order (1 when the posts
// go one at a time, so the rows land as sent).
func (k Knobs) Estimate() *frame.Frame {
	f := frame.Of(fmt.Sprintf("source 004 estimated: %d posts, %v an insert", k.N, k.Delay), "strategy", "waves", "elapsed_s", "in_order")
	for _, app := range Apps() {
		for _, client := range Clients() {
			w := k.Waves(client, app)
			f.MustAppend(frame.Row{"strategy": Label(client, app), "waves": w, "elapsed_s": float64(w) * k.Delay.Seconds(), "in_order": w == k.N})
		}
	}
	return f
}

// Table is the source's figures for 26 posts: strategy, elapsed_s,
// vs_sync (over the sync client on the sync app) and rows (the order they
// landed in). Its "async client" that calls requests in async def is
// "async def + requests".
func Table() *frame.Frame {
	f := frame.Of("source 004: 26 posts", "strategy", "elapsed_s", "vs_sync", "rows")
	for _, r := range []frame.Row{
		{"strategy": Label(SyncClient, SyncApp), "elapsed_s": 18.0, "vs_sync": 1.0, "rows": "in order"},
		{"strategy": Label(FakeAsyncClient, SyncApp), "elapsed_s": 19.0, "vs_sync": 19.0 / 18, "rows": "in order"},
		{"strategy": Label(AiohttpClient, SyncApp), "elapsed_s": 3.6, "vs_sync": 0.2, "rows": "shuffled"},
		{"strategy": Label(SyncClient, AsyncApp), "elapsed_s": 16.0, "vs_sync": 16.0 / 18, "rows": "in order"},
		{"strategy": Label(AiohttpClient, AsyncApp), "elapsed_s": 4.0, "vs_sync": 4.0 / 18, "rows": "shuffled"},
	} {
		f.MustAppend(r)
	}
	return f
}
