"""Measures what source 000's ProcessPool strategy really sends through its
process pool's pipes: run_in_executor(process_executor, convert_image,
image_path, output_path), as the app calls it, --n times on --image.

The bytes are counted where the parent process writes to and reads from
the pool's pipes (multiprocessing.connection.Connection's _send_bytes and
_recv_bytes, wrapped in this process only): the pickled call (the function
by reference and its two path strings) out, the pickled result (the output
path) back, plus the executor's own wake-up bytes.

It also times what else a process pool costs, each on the app's own
functions (the median of --n calls unless said):
  first_ms      the first conversion through a fresh pool (fork, Linux's
                default in 3.11: the pool forks its workers at that submit)
  warm_ms       later conversions through the same pool
  inline_ms     the conversion called in this process, no pool
  empty_ms      the round trip of an empty call (os.getpid) through the pool
  spawn_first_ms  the first conversion through a fresh one-worker pool that
                spawns (macOS's default, the source's system): a new
                interpreter that imports the app module and Pillow first
  spawn_warm_ms   later conversions through that pool
  insert_ms     baseRepository.insert_sync, the blocking insert the
                ProcessPool handler runs on the event loop (SQLite here)
Prints one JSON object: calls, bytes_out and bytes_in per call, the paths'
lengths, and the times above.

usage: ipc_bytes.py --image PATH [--n 20] [--out-dir DIR]
"""
import argparse
import asyncio
import json
import multiprocessing
import multiprocessing.connection as mpc
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sent = [0, 0]  # bytes, calls
received = [0, 0]


def wrap():
    s, r = mpc.Connection._send_bytes, mpc.Connection._recv_bytes

    def send(self, buf):
        sent[0] += len(buf)
        sent[1] += 1
        return s(self, buf)

    def recv(self, maxsize=None):
        b = r(self, maxsize)
        received[0] += b.getbuffer().nbytes
        received[1] += 1
        return b

    mpc.Connection._send_bytes, mpc.Connection._recv_bytes = send, recv


async def timed(loop, pool, fn, *args):
    t = time.perf_counter()
    await loop.run_in_executor(pool, fn, *args)
    return (time.perf_counter() - t) * 1000


def median_ms(xs):
    return statistics.median(xs) if xs else 0.0


async def main(a):
    from app000_upload import ImageProcessor, baseRepository  # the app's own, by reference
    wrap()
    ext = os.path.splitext(a.image)[1] or ".jpg"
    out = lambda name: os.path.join(a.out_dir, name + ext)
    loop = asyncio.get_running_loop()
    r = {"calls": a.n}
    with ProcessPoolExecutor(mp_context=multiprocessing.get_context("fork")) as pool:
        r["first_ms"] = await timed(loop, pool, ImageProcessor.convert_image, a.image, out("warm"))
        sent[:] = [0, 0]
        received[:] = [0, 0]
        warm = [await timed(loop, pool, ImageProcessor.convert_image, a.image, out("ipc_%d" % i)) for i in range(a.n)]
        s, rc = list(sent), list(received)
        empty = [await timed(loop, pool, os.getpid) for _ in range(a.n)]
    r.update({"bytes_out": s[0] / a.n, "bytes_in": rc[0] / a.n, "writes": s[1] / a.n, "reads": rc[1] / a.n,
              "path_chars": len(a.image) + len(out("ipc_0")),
              "warm_ms": median_ms(warm), "empty_ms": median_ms(empty)})
    inline = []
    for i in range(a.n):
        t = time.perf_counter()
        ImageProcessor.convert_image(a.image, out("inline_%d" % i))
        inline.append((time.perf_counter() - t) * 1000)
    r["inline_ms"] = median_ms(inline)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        r["spawn_first_ms"] = await timed(loop, pool, ImageProcessor.convert_image, a.image, out("spawn"))
        r["spawn_warm_ms"] = median_ms([await timed(loop, pool, ImageProcessor.convert_image, a.image, out("spawn_%d" % i))
                                        for i in range(min(a.n, 5))])
    ins = []
    for i in range(a.n):
        t = time.perf_counter()
        baseRepository.insert_sync({"image_path": out("ipc_%d" % i)})
        ins.append((time.perf_counter() - t) * 1000)
    r["insert_ms"] = median_ms(ins)
    print(json.dumps(r))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--image", required=True)
    p.add_argument("--n", type=int, default=20)
    p.add_argument("--out-dir", default=".")
    a = p.parse_args()
    os.environ.setdefault("CONCLAB_SQLITE", os.path.join(a.out_dir, "ipc.sqlite3"))
    os.environ.setdefault("CONCLAB_UPLOAD_DIR", a.out_dir)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    asyncio.run(main(a))
