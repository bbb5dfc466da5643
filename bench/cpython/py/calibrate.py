"""Measures the real per-step costs of the sources' work on this machine and
prints them as one JSON object (used by bench/cpython.Calibrate):

  image   one convert pipeline of source 000 (open, convert RGB, rotate 180
          x4, save) on --image, the median CPU time of --repeat runs (the
          model burns CPU time, so load from other processes does not skew
          it), and the share of
          it that holds the GIL: a pure-Python counter thread runs beside it,
          and the counter's progress, against its rate beside a thread that
          burns CPU with the GIL released (hashlib), is the time the GIL was
          free.
  sumsq   source 003's sum(x**2 for x in list(range(n))), median CPU time
  insert  one committed INSERT (PyMySQL when CONCLAB_DB_HOST is set, else
          sqlite3), median of --inserts runs, into a scratch table dropped after

usage: calibrate.py --image PATH [--n 1000000] [--repeat 3] [--inserts 50]
"""
import argparse
import json
import os
import statistics
import threading
import time

from _conclab import SyncDB, db_kind, sum_of_squares, table_name


def convert_image(image_path, output_path):
    from PIL import Image
    image = Image.open(image_path)
    image = image.convert("RGB")
    image = image.rotate(180)
    image = image.rotate(180)
    image = image.rotate(180)
    image = image.rotate(180)
    image.save(output_path)
    return output_path


def count_for(stop):
    n = 0
    while not stop():
        for _ in range(1000):
            n += 1
    return n


def counter_rate(seconds):
    end = time.perf_counter() + seconds
    t0 = time.perf_counter()
    n = count_for(lambda: time.perf_counter() >= end)
    return n / (time.perf_counter() - t0)


def hash_burner(stop):
    """CPU work that releases the GIL throughout: hashlib drops it for
    buffers over 2 KiB."""
    import hashlib
    buf = b"x" * (1 << 20)
    while not stop.is_set():
        hashlib.sha256(buf).digest()


def reference_rate(seconds):
    """The counter's rate beside a thread that burns CPU without the GIL:
    on a machine whose other cores are busy this is lower than the rate
    alone, and normalising by it keeps core contention out of the GIL share."""
    stop = threading.Event()
    th = threading.Thread(target=hash_burner, args=(stop,))
    th.start()
    try:
        return counter_rate(seconds)
    finally:
        stop.set()
        th.join()


def gil_held_share(fn):
    """Run fn in a thread while this thread counts; return (held share of
    the contended run, fn's elapsed seconds under contention)."""
    rate = reference_rate(0.3)
    done = threading.Event()
    box = {}

    def work():
        t0 = time.perf_counter()
        fn()
        box["elapsed"] = time.perf_counter() - t0
        done.set()

    th = threading.Thread(target=work)
    t0 = time.perf_counter()
    th.start()
    n = count_for(done.is_set)
    total = time.perf_counter() - t0
    th.join()
    free = n / (rate * total) if rate > 0 and total > 0 else 0.0
    return min(1.0, max(0.0, 1.0 - free)), box["elapsed"]


def median_time(fn, repeat):
    """Median wall time of repeat runs (for I/O steps)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def median_cpu(fn, repeat):
    """Median CPU time of this thread over repeat runs, and the median wall
    time. CPU steps are calibrated in CPU time: the model burns CPU time
    too, so other processes competing for the cores (a shared machine)
    stretch both alike instead of skewing the calibration."""
    cpu, wall = [], []
    for _ in range(repeat):
        c0, t0 = time.thread_time(), time.perf_counter()
        fn()
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - t0)
    return statistics.median(cpu), statistics.median(wall), cpu


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--image", required=True)
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--inserts", type=int, default=50)
    p.add_argument("--out-dir", default=".")
    a = p.parse_args()
    out = {}

    ext = os.path.splitext(a.image)[1] or ".jpg"
    dst = os.path.join(a.out_dir, "calibrate_output" + ext)
    convert_image(a.image, dst)  # warm up: imports, codecs, page cache
    med, wall, runs = median_cpu(lambda: convert_image(a.image, dst), a.repeat)
    held = [gil_held_share(lambda: convert_image(a.image, dst)) for _ in range(max(3, a.repeat))]
    from PIL import Image
    with Image.open(a.image) as im:
        w, h = im.size
    # Each try's held seconds (share x contended time); the median of them.
    held_s = statistics.median(x[0] * x[1] for x in held)
    contended = statistics.median(x[1] for x in held)
    out["image"] = {"seconds": med, "wall_seconds": wall, "runs": runs, "gil_held": held_s / contended if contended else 0.0,
                    "held_seconds": held_s, "contended_seconds": contended,
                    "width": w, "height": h, "bytes": os.path.getsize(a.image)}
    os.remove(dst)

    med, wall, runs = median_cpu(lambda: sum_of_squares(a.n), a.repeat)
    # The same work in 10 threads of this process at once (source 003's 10
    # requests on one worker): wall time per call. Above the CPU time alone
    # is the GIL's hand-off cost between threads on this machine now.
    threads = [threading.Thread(target=sum_of_squares, args=(a.n,)) for _ in range(10)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    threaded = (time.perf_counter() - t0) / len(threads)
    out["sumsq"] = {"seconds": med, "wall_seconds": wall, "runs": runs, "n": a.n, "threaded_seconds": threaded}

    db = SyncDB(table_name("conclab_calibrate"), ["image_path"])
    db.create()
    try:
        db.insert({"image_path": "warm-up"})
        med, runs = median_time(lambda: db.insert({"image_path": "/tmp/x_output.jpg"}), a.inserts)
    finally:
        db.drop()
    out["insert"] = {"seconds": med, "db": db_kind(), "count": a.inserts}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
