// Package load is the lab's HTTP load generator: load models driving an
// in-process HTTP client, with results recorded by bench/metrics into HDR
// histograms and returned as frames.
//
// The entry point is Run:
//
//	res, err := load.Run(ctx, load.Target{URL: srv.URL}, load.Closed{VUs: 20, Duration: 10 * time.Second, Think: time.Second}, load.Options{})
//	res.Summary()      // one-row frame: count, errors, rps, min_ms ... p99_ms ...
//	res.Series()       // one row per interval
//	res.Distribution() // latency by percentile
//
// The models, a file each with its validation, plan and run (k6's
// executors): Burst (N at once), Sequential, Closed (constant VUs, with
// think time, a duration, iterations per VU or a total), RampingVUs
// (stages of VUs), Open (a constant arrival rate, or any Pacer),
// RampingRate (stages of rates) and Idle. Run is a short pipeline:
// validate everything (prepare), wait for StartAt, run the model on the
// engine, assemble and check the result.
//
// Every run is bounded three ways: by ctx, by Options.MaxDuration and by
// Options.MaxRequests (a model that plans more requests is refused).
// Stopping is graceful, as in k6: at the model's end (or a bound) no new
// request starts; requests in flight get Options.GracefulStop to finish,
// then they are cut off and counted as interrupted.
//
// Each worker (VU, burst slot, open-model sender) owns one keep-alive
// connection, so the connection pool is sized to the concurrency; set
// Options.NewConnPerRequest for a new connection per request. HTTP/1.1 is
// the generator's own client (plain, or over TLS for https://);
// Options.HTTP2 speaks HTTP/2 over TLS (ALPN) or cleartext (h2c), with
// Options.Streams workers sharing a connection. Targets must be loopback
// unless Options.AllowRemote is set.
//
// The open models measure latency from each request's intended start
// (coordinated omission corrected) and keep the latency from the actual
// send beside it (Result.Uncorrected). The generator checks itself: its
// process CPU, late sends and dropped arrivals become Result.Warnings.
//
// Pass/fail: Options.Thresholds ("p95<200ms", "errors<1%") are checked on
// the result (Result.Thresholds, Result.Passed); with Options.AbortOnFail
// the run stops as soon as one is certain to fail.
//
// Watching a run: Options.Progress (counts, every 200 ms),
// Options.OnStart (the plan) and Options.OnInterval (each series interval
// as it closes, with its latency statistics and histograms: a live view's
// feed). Options.Requests streams every request (the raw results;
// bench/load/requestlog writes them as CSV or SQLite).
//
// Beyond one machine, bench/load/split runs a segment of a model (k6's
// execution segments) from a shared StartAt, writes HdrHistogram interval
// logs and merges them; this package knows nothing of segments.
package load
