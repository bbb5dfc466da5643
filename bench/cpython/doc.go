// Package cpython runs real CPython as a strategy: a source's own Python
// app, on the interpreter of conclab's pinned environment, beside the
// model (bench/pymodel) in the same bench.Run. It holds only that and what
// runs it; each source's apps, clients and comparisons live in its own
// package (sources/...), which hands its Python files over as App.Files.
//
//   - App and Server: one app (its Files, an ASGI/WSGI Module) served by
//     uvicorn (one process, or --workers W spawned), gunicorn's gthread
//     workers, gunicorn with uvicorn.workers.UvicornWorker, or gunicorn's
//     own asgi worker, optionally with --reuse-port. Start writes the
//     files beside the shared helpers (py/_conclab.py: knobs, the database,
//     the trace middleware) into a temporary directory, starts the server
//     in its own process group on a loopback socket the Go side opened (no
//     port race) and waits until every worker answers; Close ends the
//     whole group (TERM, then KILL after a grace period), waits, and is
//     safe to call twice. Cancelling the ctx given to Start closes it the
//     same way.
//   - Real: an App as a strategy.Strategy, labelled "real X" (RealPrefix)
//     beside the model's "X", driven by the same load model through the
//     same generator, every figure from bench/metrics. Its server measures
//     cpu_s and rss_mb of the app's process group from /proc (NaN for the
//     model-only columns) and, with Options.Trace, reads the app's trace.
//   - Script and Client: a source's Python script (a client, a calibration
//     or a probe) run to completion in its own process group, its JSON
//     result decoded; a Client's requests ([latency_ms, error] each) are
//     recorded through bench/metrics, so its row means what bench.Run's
//     mean.
//   - Env, Detect: the interpreter found and which modules import.
//
// The package never calls the load generator: bench.Run does.
//
// Python is resolved as Options.Python, else $CONCLAB_PYTHON, else the
// python of conclab's pinned environment (.venv from
// python/requirements.lock, made by scripts/setup.sh; internal/pyenv),
// never whichever python3 is first on PATH. When it or a module is
// missing, calls fail with a *MissingError naming the PyPI distributions
// and the set-up command; it matches ErrUnavailable with errors.Is, so a
// notebook can skip the real-CPython part:
//
//	if errors.Is(err, cpython.ErrUnavailable) { /* show the model only */ }
package cpython
