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
//   - Server: a real-CPython strategy. Start(ctx) writes the apps to a
//     temporary directory, starts `python3 -m uvicorn` or `python3 -m
//     gunicorn` in its own process group on a loopback socket the Go side
//     opened (no port race), and waits until the app answers; URL() is its
//     base URL; Close() ends the whole process group (TERM, then KILL after
//     a grace period) and waits, and is safe to call twice. Cancelling the
//     ctx given to Start closes the server the same way.
//   - Clients (Bench001, Client002, Client004, RunScript): the sources'
//     client scripts run as Python processes; their timings come back as a
//     *frame.Frame with the Python version, package versions and CPU count
//     in every row.
//   - Burst and ClosedVUs: the lab's load generator (bench/load) aimed at
//     the real apps (N requests at once; k6-style closed virtual users with
//     think time and multipart uploads), summarised in this package's
//     frame columns.
//   - Calibrate: real per-step costs (one Pillow convert pipeline on the 8K
//     image and the share of it that holds the GIL, one sum of squares, one
//     database insert) as a frame and as a Calibration whose methods build
//     bench/pymodel steps that burn the same CPU time, holding or releasing
//     the GIL as the real library does.
//   - Agreement and Compare001/002/003/000Upload: the same scenario on the
//     model and on real CPython, side by side, with the ratio, a
//     within-tolerance flag and a verdict sentence. The model runs in process
//     (bench/pymodel) or, with Options.ModelOverHTTP, as a bench/strategy
//     server driven by the same client as the real app.
//   - Presets: the references by the sources' row names ("sync",
//     "/offload", "Flask 2w x 5t cpu", ...), each a Server plus the request
//     a load generator sends.
//
// Python is resolved as Options.Python, else $CONCLAB_PYTHON, else
// /usr/bin/python3 (Debian's, where python3-fastapi and friends live), else
// python3 on PATH. When it or a module is missing, calls fail with a
// *MissingError naming the Debian packages to install; it matches
// ErrUnavailable with errors.Is, so a notebook can skip the real-CPython part:
//
//	if errors.Is(err, cpython.ErrUnavailable) { /* show the model only */ }
package cpython
