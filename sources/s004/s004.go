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
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	// Jitter adds a random wait of up to Jitter to each insert (not the
	// source's: equal waits that overlap can still end in arrival order;
	// unequal ones show the overlap in the rows' order). 0: none.
	Jitter time.Duration
	// Database is "sqlite" ("": the same) or "mysql": MariaDB or MySQL at
	// MySQLDSN, else at $CONCLAB_MYSQL_DSN.
	Database string
	// MySQLDSN, when set, is the database (go-sql-driver form, as
	// $CONCLAB_MYSQL_DSN) whatever Database says; "" is Database's.
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
		return fmt.Errorf("s004: posts (POSTs per run) must be in 1..1000, got %d", k.N)
	case k.Delay <= 0 || k.Delay > time.Minute:
		return fmt.Errorf("s004: delay must be in (0, 1m], got %v", k.Delay)
	case k.Jitter < 0 || k.Jitter > time.Minute:
		return fmt.Errorf("s004: jitter must be in [0, 1m], got %v", k.Jitter)
	case k.CPUs < 0:
		return fmt.Errorf("s004: CPUs must not be negative, got %d", k.CPUs)
	}
	_, err := k.DSN()
	return err
}

// DSN is the MySQL DSN the knobs ask for: MySQLDSN, else
// $CONCLAB_MYSQL_DSN when Database is "mysql"; "" is SQLite. Database
// "mysql" without a DSN, or a Database other than "sqlite" and "mysql", is
// an error naming the knob.
func (k Knobs) DSN() (string, error) {
	if k.MySQLDSN != "" {
		return k.MySQLDSN, nil
	}
	switch k.Database {
	case "", "sqlite":
		return "", nil
	case "mysql":
		if dsn := os.Getenv("CONCLAB_MYSQL_DSN"); dsn != "" {
			return dsn, nil
		}
		return "", errors.New(`s004: database "mysql" needs CONCLAB_MYSQL_DSN (e.g. user:pass@tcp(127.0.0.1:3306)/conclab); unset, use "sqlite"`)
	}
	return "", fmt.Errorf(`s004: database must be "sqlite" or "mysql", got %q`, k.Database)
}

// Pairs are the source's five combinations of client and app, in its
// table's order (it did not run its blocking "async" client against the
// async app).
func Pairs() [][2]string {
	return [][2]string{
		{SyncClient, SyncApp}, {FakeAsyncClient, SyncApp}, {AiohttpClient, SyncApp},
		{SyncClient, AsyncApp}, {AiohttpClient, AsyncApp},
	}
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

// Estimate is the arithmetic's prediction for each pair: strategy, waves,
// elapsed_s (waves × a wave's time: Delay + Jitter/2 on average for one
// post at a time, about Delay + Jitter for a wave of many overlapping
// posts, its longest wait), waits (elapsed_s over Delay) and order ("must
// be in order" when the posts go one at a time, so the rows land as sent;
// "any order" when they overlap).
func (k Knobs) Estimate() *frame.Frame {
	f := frame.Of(fmt.Sprintf("source 004 estimated: %d posts, %v an insert", k.N, k.Delay), "strategy", "waves", "waits", "elapsed_s", "order")
	for _, p := range Pairs() {
		w := k.Waves(p[0], p[1])
		per := k.Delay + k.Jitter/2 // one post's mean wait
		order := "must be in order"
		if w < k.N {
			per, order = k.Delay+k.Jitter, "any order" // a wave lasts its longest wait
		}
		el := float64(w) * per.Seconds()
		f.MustAppend(frame.Row{"strategy": Label(p[0], p[1]), "waves": w, "waits": el / k.Delay.Seconds(), "elapsed_s": el, "order": order})
	}
	return f
}

// Table is the source's figures for 26 posts: strategy, elapsed_s,
// waits (over its 18 s / 26 = 0.69 s a post), vs_sync (over the sync
// client on the sync app), order as the post states it ("not stated" for
// its last two rows, which the text does not give) and a note of what was
// inferred. Its "async client" that calls requests in async def is "async
// def + requests".
func Table() *frame.Frame {
	f := frame.Of("source 004: 26 posts", "strategy", "elapsed_s", "waits", "vs_sync", "order", "note")
	per := 18.0 / 26
	for _, r := range []struct {
		pair  [2]string
		s     float64
		order string
		note  string
	}{
		{[2]string{SyncClient, SyncApp}, 18, "in order", "about 18 s"},
		{[2]string{FakeAsyncClient, SyncApp}, 19, "in order", "about 19 s"},
		{[2]string{AiohttpClient, SyncApp}, 3.6, "shuffled", "\"about 20 %\" of the sync time: 0.2 × 18 s"},
		{[2]string{SyncClient, AsyncApp}, 16, "not stated", "about 16 s"},
		{[2]string{AiohttpClient, AsyncApp}, 4, "not stated", "\"over 4 s\": 4 s is a lower bound"},
	} {
		f.MustAppend(frame.Row{"strategy": Label(r.pair[0], r.pair[1]), "elapsed_s": r.s, "waits": r.s / per,
			"vs_sync": r.s / 18, "order": r.order, "note": r.note})
	}
	return f
}
