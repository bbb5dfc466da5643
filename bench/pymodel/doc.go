// Package pymodel is a real, running model of the CPython web-serving runtime
// the lab's source experiments measure: uvicorn/Starlette/FastAPI and
// gunicorn/Flask. Nothing here is computed from a formula; every mechanism is
// real synchronisation executing real work:
//
//   - one event loop per process ([Loop]): a goroutine running callbacks one
//     at a time; an async handler runs on it and yields only where a step is
//     awaited, so a blocking step blocks every other request;
//   - one GIL per process ([GIL]): a FIFO lock that CPU steps hold, with a
//     forced hand-off every switch interval (5 ms by default) when another
//     thread waits; I/O waits release it; a step can be marked as releasing it,
//     as C extensions such as Pillow do;
//   - thread pools with Python's sizes: AnyIO's 40-token limiter for def
//     handlers and run_in_threadpool, asyncio's default executor of
//     min(32, CPUs+4) threads for to_thread and run_in_executor(None, ...);
//   - process pools ([ProcessPool]) of real OS processes: the running binary
//     re-executed in worker mode, each step and its payload serialised through
//     pipes, one worker per modelled CPU by default.
//
// Steps: every workload step of the lab is built here — the model's own
// kinds (Sleep, CPU, Burn, BurnNoGIL, Custom; step.go), the image upload
// step (Image; image.go) and the sources' app steps (DBInsert,
// DBInsertField, Print, Downstream; appsteps.go) — and ParseWorkload reads
// workload specs. They live in this package because a step kind must be
// known where it runs: this package's runtime and its worker processes
// (process pools, prefork children) run every portable step, so the kinds
// beyond the model's own are a plain table (kinds.go) rather than a
// registry other packages fill at init.
//
// Worker mode: a binary that uses process pools or prefork workers must call
// [WorkerMain] first thing in main (the conclab binary does so through its
// workerHook) and in TestMain for tests:
//
//	func TestMain(m *testing.M) {
//		if code, ok := pymodel.WorkerMain(); ok {
//			os.Exit(code)
//		}
//		os.Exit(m.Run())
//	}
//
// The public surface has no generics so notebook cells (the yaegi
// interpreter) can use it; a custom step is a plain func value.
package pymodel
