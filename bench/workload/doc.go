// Package workload holds the lab's real work primitives: the things a
// request handler does in the source experiments, done for real. Sleeps
// are the runtime's business; here are CPU work (sum of squares, burn a set
// amount of thread CPU time), the image upload pipeline (multipart parse,
// decode, convert to RGB, rotate 180° four times, encode, save — with
// github.com/disintegration/imaging) on deterministic generated test
// images, a database insert through database/sql (embedded SQLite,
// MariaDB/MySQL, PostgreSQL), print (a write(2) per line to a slow pipe, a file or
// /dev/null, vs an async buffered writer, vs none), and a mock downstream
// service with a client that fans calls out sequentially, through a bounded
// pool, or all at once.
//
// The package knows nothing of the GIL, event loops or strategies: every
// primitive is a plain function or method, ctx first, that does its work on
// the calling goroutine and returns when it is done. The public surface
// has no generics, so notebooks can call it from the interpreter.
//
// # How to wrap these as steps
//
// Each primitive below is either CPU work (hold the GIL while it runs) or
// an I/O wait (release the GIL; may be awaited on a loop). The column "kind"
// is the suggested mapping for the Python model.
//
//	step                 call                                             kind
//	sum of squares       SumSquaresSliced(ctx, n, slice, between)         CPU; between() = GIL hand-off
//	burn CPU time d      BurnCPUSliced(ctx, d, switchInterval, between)   CPU; between() = GIL hand-off
//	image: parse         ParseUpload(ctx, r, "file")                      I/O (reads the body)
//	image: convert       ConvertImage(ctx, data) -> out, format, timings  CPU (Pillow holds the GIL for convert;
//	                                                                      rotate/encode are C code: mark as
//	                                                                      GIL-releasing if modelled so)
//	image: save          (*ImagePipeline).Save(ctx, name, format, out)    I/O (a file write)
//	  or phase by phase  DecodeImage, ToRGB, RotateFour, EncodeImage      each CPU; choose per phase
//	image: all phases    (*ImagePipeline).HandleUpload(ctx, r)            mixed; timings per phase in the result
//	db insert            (*DB).Insert(ctx, value)                         I/O (a round trip / an fsync)
//	print a line         (*Printer).Println(ctx, line)                    sync: I/O blocking in write(2) (the
//	                                                                      thread is stuck while a pipe is full);
//	                                                                      async: a queue put; none: nothing
//	downstream call      CallDownstream(ctx, client, url)                 I/O
//	fan-out N calls      FanOut{URL, Calls, Mode, Workers}.Run(ctx)       I/O; Mode = sequential|pool|all
//
// Set-up objects a strategy owns for its whole run, each with Close (safe
// twice): NewImagePipeline(parentDir) (owns an output dir), OpenDB(ctx, dsn)
// (owns its rows, and a temp SQLite file for dsn ""), OpenSink(spec) plus
// NewPrinter(mode, sink, queue), StartDownstream(ctx, latency). Close the
// Printer before its Sink. The images come from LoadImage(ctx, JPEG8K())
// and LoadImage(ctx, SmallPNG()), generated once per machine in
// CacheDir(); NewUploadRequest builds the request a client sends.
//
// Process pools: ConvertImage is bytes in, bytes out, so a worker process
// can run it on a payload read from a pipe and write the result back —
// the IPC cost is then the real cost of moving ~1.4 MB each way.
//
// CPU parallelism: imaging runs each operation on GOMAXPROCS goroutines.
// A model of one Python thread that wants the image work confined to one
// core must run it where GOMAXPROCS is 1 (e.g. in a worker process), or
// account for it as GIL-released C-extension work.
//
// Every value that reports timings also renders as a frame row (Row) or
// frame, using the lab's column names: *_ms, elapsed_s, count, errors,
// bytes_in, bytes_out. ImageFrame and PrintFrame gather many results into
// one frame with a readable column order; (*DB).Rows and FanOutResult's
// Calls and Summary are frames already.
package workload
