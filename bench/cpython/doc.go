// Package cpython runs the source experiments' own Python apps — written by
// this project, embedded in the binary — on the real CPython found on the
// machine, so a notebook can put the model's prediction (bench/pymodel) next
// to reality on the same machine in the same run.
//
// What is here:
//
//   - The reference apps and clients (py/*.py, see Files): source 000's
//     print endpoints and four-strategy image upload, 001's four waiting
//     endpoints and its httpx bench client, 002's downstream /health and its
//     three clients, 003's Flask and FastAPI I/O and CPU handlers, 004's sync
//     and async apps inserting into a database, and its clients. Waits and
//     sizes are parameters (App fields, query strings) so tests can scale the
//     sources' 1 s and 10 s down.
//   - Real: a source's app as a strategy.Strategy, so one bench.Run holds
//     model strategies "X" and real ones "real X", driven by the same load
//     model through the same generator, every figure from bench/metrics.
//     Its server measures cpu_s and rss_mb of the app's process group from
//     /proc (NaN for the model-only columns) and, with Options.Trace, reads
//     the app's trace middleware.
//   - Server: what Real starts. Start(ctx) writes the apps to a temporary
//     directory, starts `python3 -m uvicorn` or `python3 -m gunicorn` in its
//     own process group on a loopback socket the Go side opened (no port
//     race), and waits until the app answers; Close() ends the whole
//     process group (TERM, then KILL after a grace period) and waits, and
//     is safe to call twice. Cancelling the ctx given to Start closes the
//     server the same way.
//   - Per-source comparisons, file by source: Versus001/Experiment001,
//     Experiment003 (Options003), Experiment000Print (PrintModel),
//     Experiment000Upload and Model000 (upload000.go), Versus002 and
//     Versus004 (the client-side sources, whose clients make the load);
//     lab.ModelVsReal runs and judges them.
//   - Clients (Bench001, RunClient002, Client004, RunScript): the sources'
//     client scripts run as Python processes; each prints one [latency_ms,
//     error] per request and Go records them through bench/metrics
//     (record.go), so their columns mean what bench.Run's do.
//   - Calibrate: real per-step costs (one Pillow convert pipeline on the 8K
//     image and the share of it that holds the GIL, one sum of squares, one
//     database insert) as a frame and as a Calibration whose methods build
//     bench/pymodel steps that burn the same CPU time, holding or releasing
//     the GIL as the real library does.
//   - Presets: the Real strategies by the sources' row names ("sync",
//     "/offload", "Flask 2w x 5t cpu", ...).
//
// The package never calls the load generator: bench.Run does.
//
// Python is resolved as Options.Python, else $CONCLAB_PYTHON, else the
// python of conclab's pinned environment (.venv from
// python/requirements.lock, made by scripts/setup.sh; internal/pyenv),
// never whichever python3 is first on PATH. When it or a module is
// missing, calls fail with a *MissingError naming the PyPI distributions
// and the set-up command; it matches
// ErrUnavailable with errors.Is, so a notebook can skip the real-CPython part:
//
//	if errors.Is(err, cpython.ErrUnavailable) { /* show the model only */ }
package cpython
