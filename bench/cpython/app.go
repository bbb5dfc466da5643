package cpython

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Server kinds: how an App is served.
const (
	// Uvicorn is `python -m uvicorn MODULE:app`: one process, one loop;
	// with Workers > 1, `--workers W`: a supervisor that spawns (not forks)
	// W processes sharing its listening socket, each a loop.
	Uvicorn = "uvicorn"
	// Gunicorn is `python -m gunicorn -w W --threads T MODULE:app` with the
	// sync/gthread worker (Flask).
	Gunicorn = "gunicorn"
	// GunicornUvicorn is gunicorn with `-k uvicorn.workers.UvicornWorker`:
	// W processes, each a uvicorn loop (gunicorn's --threads has no effect).
	// The source's "gunicorn with uvicorn workers"; uvicorn 0.54 still ships
	// the module, deprecated in favour of the uvicorn-worker package.
	GunicornUvicorn = "gunicorn+uvicorn"
	// GunicornASGI is gunicorn's own ASGI worker (`-k asgi`, gunicorn 25
	// and later): W processes, each an asyncio loop serving the app with
	// gunicorn's HTTP parser, accepting through loop.create_server as
	// uvicorn does.
	GunicornASGI = "gunicorn+asgi"
)

// App is one reference app and how to serve it. Build one with a source's
// constructor (App001, App003Flask, ...) and adjust fields as needed; the
// zero value is not runnable.
type App struct {
	// Name labels the app in frames (the strategy column), e.g.
	// "gunicorn 2w x 5t".
	Name string
	// Module is the ASGI/WSGI target, e.g. "app001:app".
	Module string
	// Server is Uvicorn, Gunicorn or GunicornUvicorn.
	Server string
	// Workers and Threads size gunicorn (0 means 1); Workers also sizes
	// uvicorn's --workers.
	Workers, Threads int
	// ReusePort gives each gunicorn worker a listening socket of its own
	// (gunicorn's --reuse-port, SO_REUSEPORT on one port): the kernel
	// spreads connections over the workers' sockets by a hash of each
	// connection's addresses, instead of every worker waiting on one shared
	// socket. Gunicorn kinds only.
	ReusePort bool
	// Env holds the app's CONCLAB_* knobs (waits, sizes); PYTHONUNBUFFERED=1
	// is always set.
	Env map[string]string
	// Requires lists the Python modules the app imports; Start fails with
	// a *MissingError naming their PyPI distributions when one is missing.
	Requires []string
	// DB, when not nil, gives the app a database (see DB); its table is
	// created by the app and dropped when the server closes.
	DB *DB
	// Images asks Start to generate the sources' test images into the
	// server's directory (source 000's upload; see Server.ImagePath).
	Images bool
	// ImageSize is the size of the generated large image (zero: the
	// source's 8K, 7680 x 4320); tests make it smaller to run faster.
	ImageSize ImageSize
}

// Validate reports an app that cannot be started, naming what is wrong.
func (a App) Validate() error {
	if !strings.Contains(a.Module, ":") {
		return fmt.Errorf("cpython: app %q: Module must be MODULE:ATTR, got %q", a.Name, a.Module)
	}
	switch a.Server {
	case Uvicorn, Gunicorn, GunicornUvicorn, GunicornASGI:
	default:
		return fmt.Errorf("cpython: app %q: unknown Server %q (want %q, %q, %q or %q)", a.Name, a.Server, Uvicorn, Gunicorn, GunicornUvicorn, GunicornASGI)
	}
	if a.Workers < 0 || a.Threads < 0 {
		return fmt.Errorf("cpython: app %q: Workers and Threads must not be negative (got %d, %d)", a.Name, a.Workers, a.Threads)
	}
	if a.Server == Uvicorn && a.Threads > 1 {
		return fmt.Errorf("cpython: app %q: uvicorn has no threads setting (got Threads %d)", a.Name, a.Threads)
	}
	if a.Server == Uvicorn && a.ReusePort {
		return fmt.Errorf("cpython: app %q: ReusePort is gunicorn's --reuse-port; uvicorn 0.54 has none", a.Name)
	}
	return nil
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

var fastapiMods = []string{"fastapi", "uvicorn", "starlette", "anyio"}

func with(mods []string, more ...string) []string {
	return append(append([]string(nil), mods...), more...)
}

// The endpoints of source 001's app.
const (
	SyncSleep  = "/sync-sleep"  // def + time.sleep: AnyIO's 40-thread limiter
	AsyncBlock = "/async-block" // async def + time.sleep: blocks the loop
	AsyncOK    = "/async-ok"    // async def + await asyncio.sleep
	Offload    = "/offload"     // async def + await asyncio.to_thread: min(32, cpus+4) threads
)

// Endpoints001 lists source 001's endpoints in the source's order.
var Endpoints001 = []string{SyncSleep, AsyncBlock, AsyncOK, Offload}

// App001 is source 001's FastAPI app under uvicorn: /sync-sleep,
// /async-block, /async-ok and /offload, each waiting wait (the source's 1 s;
// a request's ?s= overrides it).
func App001(wait time.Duration) App {
	return App{
		Name: "uvicorn", Module: "app001:app", Server: Uvicorn,
		Env:      map[string]string{"CONCLAB_WAIT_S": seconds(wait)},
		Requires: fastapiMods,
	}
}

// App002 is source 002's mock downstream: FastAPI /health awaiting wait (the
// source's 200 ms; ?s= overrides) under uvicorn.
func App002(wait time.Duration) App {
	return App{
		Name: "downstream", Module: "app002:app", Server: Uvicorn,
		Env:      map[string]string{"CONCLAB_WAIT_S": seconds(wait)},
		Requires: fastapiMods,
	}
}

// Handler modes of source 003's apps.
const (
	ModeIO  = "io"  // time.sleep(wait)
	ModeCPU = "cpu" // sum(x**2 for x in list(range(n)))
)

// App003Flask is source 003's Flask app under gunicorn with workers x
// threads. /test-flask runs mode (ModeIO: sleep wait, the source's 10 s;
// ModeCPU: sum of squares of n, the source's 10,000,000); /io and /cpu run
// each by name, ?s= and ?n= override per request.
func App003Flask(workers, threads int, mode string, wait time.Duration, n int) App {
	return App{
		Name:   fmt.Sprintf("Flask gunicorn %dw x %dt", workers, threads),
		Module: "app003_flask:app", Server: Gunicorn, Workers: workers, Threads: threads,
		Env:      map[string]string{"CONCLAB_MODE": mode, "CONCLAB_WAIT_S": seconds(wait), "CONCLAB_N": strconv.Itoa(n)},
		Requires: []string{"flask", "gunicorn"},
	}
}

// App003FastAPI is source 003's FastAPI app (a def handler at /test-fast,
// plus /io and /cpu) under gunicorn with workers uvicorn workers (the
// source's "gunicorn with uvicorn"; threads do not apply).
func App003FastAPI(workers int, mode string, wait time.Duration, n int) App {
	return App{
		Name:   fmt.Sprintf("FastAPI gunicorn %dw", workers),
		Module: "app003_fastapi:app", Server: GunicornUvicorn, Workers: workers,
		Env:      map[string]string{"CONCLAB_MODE": mode, "CONCLAB_WAIT_S": seconds(wait), "CONCLAB_N": strconv.Itoa(n)},
		Requires: with(fastapiMods, "gunicorn"),
	}
}

// The endpoints of source 000's print app.
const (
	DoPrint      = "/doPrint"      // print() per line: a write(2) each, on the loop
	DoPrintAsync = "/doPrintAsync" // a buffered async writer
	DontPrint    = "/dontPrint"    // no print
)

// App000Print is source 000's chapter-2 recap: /doPrint, /doPrintAsync and
// /dontPrint under uvicorn with PYTHONUNBUFFERED=1, printing lines lines
// per request (?lines= overrides). The server's stdout is its log file.
func App000Print(lines int) App {
	return App{
		Name: "uvicorn", Module: "app000_print:app", Server: Uvicorn,
		Env:      map[string]string{"CONCLAB_PRINT_LINES": strconv.Itoa(lines)},
		Requires: fastapiMods,
	}
}

// The upload endpoints of source 000, by the source's strategy names.
var Upload000 = map[string]string{
	"sync":        "/commiter/upload_sync",
	"asyncio":     "/commiter/upload_asyncio",
	"ThreadPool":  "/commiter/upload_threadpool",
	"ProcessPool": "/commiter/upload_processpool",
}

// Strategies000 lists source 000's strategies in the source's order.
var Strategies000 = []string{"sync", "asyncio", "ThreadPool", "ProcessPool"}

// App000Upload is source 000's image-upload app under uvicorn: the four
// /commiter/upload_* endpoints (Upload000) and /health. db nil means SQLite
// in the server's directory. The test images are generated at Start.
func App000Upload(db *DB) App {
	if db == nil {
		db = &DB{}
	}
	return App{
		Name: "uvicorn", Module: "app000_upload:app", Server: Uvicorn,
		Env:      map[string]string{},
		Requires: with(fastapiMods, "PIL", "multipart", "pymysql", "aiomysql"),
		DB:       db, Images: true,
	}
}

// App004 is source 004's app: async false is the sync app (def handler, sync
// driver), true the async app (async def, aiomysql). delay adds a wait inside
// each insert (blocking in the sync app, awaited in the async one) to stand
// in for the source's slow database; 0 for none. db nil means SQLite.
func App004(async bool, db *DB, delay time.Duration) App {
	if db == nil {
		db = &DB{}
	}
	a := App{
		Name: "sync app", Module: "app004_sync:app", Server: Uvicorn,
		Env:      map[string]string{"CONCLAB_DB_DELAY_S": seconds(delay)},
		Requires: with(fastapiMods, "pymysql"),
		DB:       db,
	}
	if async {
		a.Name, a.Module = "async app", "app004_async:app"
		a.Requires = append(a.Requires, "aiomysql")
	}
	return a
}
