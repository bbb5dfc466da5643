package cpython

import (
	"fmt"
	"io/fs"
	"strings"
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

// App is one reference app and how to serve it. A source's package builds
// its own (sources/s001's App, ...) and a cell can adjust the fields; the
// zero value is not runnable.
type App struct {
	// Name labels the app in frames (the strategy column), e.g.
	// "gunicorn 2w x 5t".
	Name string
	// Files holds the app's Python files (a source package's embedded
	// py directory); Start writes them into the server's directory beside
	// this package's shared helpers (_conclab.py: the database, the trace
	// middleware).
	Files fs.FS
	// Module is the ASGI/WSGI target in Files, e.g. "app001:app".
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
}

// Validate reports an app that cannot be started, naming what is wrong.
func (a App) Validate() error {
	if a.Files == nil {
		return fmt.Errorf("cpython: app %q: no Files (the source package's Python files)", a.Name)
	}
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

// FastAPIModules are the modules a FastAPI app under uvicorn imports.
var FastAPIModules = []string{"fastapi", "uvicorn", "starlette", "anyio"}
