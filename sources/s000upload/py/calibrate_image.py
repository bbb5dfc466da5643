"""Measures source 000's upload steps on this machine and prints them as one
JSON object (sources/s000upload registers it with bench/calib):

  image   source 000's convert pipeline on --image, step by step: decode
          (open + load), convert RGB, rotate 180 x4, encode (save), and
          sha256 of the file's bytes (hashlib, a second C extension). Each
          step --repeat times alone (median CPU time: the model burns CPU
          time, so load from other processes does not skew it), and the
          share of it that holds the GIL, read from CPU time by the GIL
          probe (gil_probe; docs/calibration.md): with the switch interval
          made huge, a pure-Python thread can run only while the step has
          released the GIL, so its CPU over the step's, against the same
          ratio beside zlib.compress (which releases it throughout), is
          the step's released share.
  crowd   source 000's whole convert_image with N conversions at once in
          one process (N in --crowd, default 1,6,20: alone, a
          ThreadPoolExecutor's six threads, twenty uploads in AnyIO's
          threads): each N in a fresh interpreter, as a server starts, N
          threads converting --crowd-rounds images each; the process's CPU
          time per image. Memory a conversion maps afresh (page faults, the
          allocator's arenas) makes it cost more the more run at once.
  insert  one committed INSERT (PyMySQL when CONCLAB_DB_HOST is set, else
          sqlite3), median of --inserts runs, into a scratch table dropped after

usage: calibrate_image.py --image PATH [--repeat 3] [--inserts 50]
                          [--crowd 1,6,20] [--crowd-rounds 2] [--probe-seconds 0.5]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time

from _conclab import SyncDB, db_kind, table_name


STEPS = ("decode", "convert", "rotate", "encode", "sha256")


class ImageSteps:
    """Source 000's pipeline cut into its real steps, each a function of
    the step's input (the previous step's output, prepared once):
    decode (Image.open + load), convert("RGB"), rotate(180) x4, encode
    (save as the source's JPEG) — and sha256 of the upload's bytes, a
    second C extension that releases the GIL (hashlib, buffers over 2 KiB).
    """

    def __init__(self, image_path, out_dir):
        from PIL import Image
        self.path = image_path
        self.ext = os.path.splitext(image_path)[1] or ".jpg"
        self.out_dir = out_dir
        with open(image_path, "rb") as f:
            self.data = f.read()
        im = Image.open(image_path)
        im.load()
        self.decoded = im
        self.converted = im.convert("RGB")
        self.size = im.size

    def run(self, step, tag=""):
        from PIL import Image
        if step == "decode":
            im = Image.open(self.path)
            im.load()
        elif step == "convert":
            self.decoded.convert("RGB")
        elif step == "rotate":
            im = self.converted
            for _ in range(4):
                im = im.rotate(180)
        elif step == "encode":
            self.converted.save(os.path.join(self.out_dir, "calibrate_" + step + tag + self.ext))
        elif step == "sha256":
            import hashlib
            hashlib.sha256(self.data).digest()
        else:
            raise ValueError(step)

    def timed(self, step, tag="", barrier=None):
        """(CPU seconds of this thread, wall seconds) of one run of step,
        started when barrier (if any) lets every party go."""
        if barrier is not None:
            barrier.wait()
        c0, t0 = time.thread_time(), time.perf_counter()
        self.run(step, tag)
        return time.thread_time() - c0, time.perf_counter() - t0


def gil_probe(fn, seconds):
    """(other, calls): fn repeated by thread A for about seconds (at least
    twice) while thread B spins in pure Python, giving the GIL back every
    few microseconds (sleep(0)); the switch interval is made huge, so B
    runs only while A has released the GIL. other is B's CPU time over
    A's. The scheduler shares the cores fairly between runnable threads,
    so on a busy machine both slow down alike and the ratio stays: 0 for a
    call that holds the GIL throughout, the reference's for one that
    releases it throughout (gil_share)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    done = threading.Event()
    go = threading.Barrier(2)
    res = {}

    def a():
        go.wait()
        c0, stop, k = time.thread_time(), time.perf_counter() + seconds, 0
        while k < 2 or time.perf_counter() < stop:
            fn()
            k += 1
        res["a"], res["calls"] = time.thread_time() - c0, k
        done.set()

    def b():
        go.wait()
        c0 = time.thread_time()
        while not done.is_set():
            for _ in range(200):
                pass
            time.sleep(0)
        res["b"] = time.thread_time() - c0

    try:
        ths = [threading.Thread(target=a), threading.Thread(target=b)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
    finally:
        sys.setswitchinterval(old)
    return (res["b"] / res["a"] if res["a"] > 0 else 0.0), res["calls"]


_ZDATA = None


def _reference():
    """zlib.compress of 4 MiB of random bytes: C work that releases the GIL
    throughout (the probe's reference)."""
    import zlib
    global _ZDATA
    if _ZDATA is None:
        _ZDATA = os.urandom(4 << 20)
    zlib.compress(_ZDATA, 6)


def gil_share(fn, repeat, seconds):
    """The share of fn's CPU during which it holds the GIL, median of
    repeat rounds: 1 - probe(fn) / probe(reference), each round probing fn
    and then the reference, clamped to 0..1."""
    held, probes, refs = [], [], []
    for _ in range(repeat):
        p, _ = gil_probe(fn, seconds)
        r, _ = gil_probe(_reference, seconds)
        probes.append(p)
        refs.append(r)
        held.append(min(1.0, max(0.0, 1.0 - p / r)) if r > 0 else 1.0)
    med = statistics.median
    return med(held), med(probes), med(refs)


def measure_step(steps, step, repeat, probe_seconds=0.5):
    """Alone (median CPU time of repeat runs) and its GIL-held share (the
    GIL probe, gil_share)."""
    steps.run(step)  # warm up
    # A step shorter than ~50 ms (sha256 of the upload, a small image) is
    # timed n runs in a row.
    c0 = time.perf_counter()
    steps.run(step)
    once = time.perf_counter() - c0
    n = max(1, min(1000, math.ceil(0.05 / once))) if once > 0 else 1000
    steps_n = _Repeated(steps, step, n) if n > 1 else steps
    alone = [steps_n.timed(step) for _ in range(repeat)]
    held, probe, ref = gil_share(lambda: steps.run(step, "probe"), repeat, probe_seconds)
    med = statistics.median
    return {
        "seconds": med(c for c, _ in alone) / n,           # CPU time alone
        "wall_seconds": med(w for _, w in alone) / n,
        "gil_probe": probe,                                 # the other thread's CPU over the step's
        "gil_reference": ref,                               # the same beside zlib (all released)
        "gil_held": held,
        "runs": n,
    }


class _Repeated:
    """steps with step run n times per timed call (for steps too short to
    time alone)."""

    def __init__(self, steps, step, n):
        self.steps, self.step, self.n = steps, step, n

    def run(self, step, tag=""):
        for _ in range(self.n):
            self.steps.run(step, tag)

    def timed(self, step, tag="", barrier=None):
        if barrier is not None:
            barrier.wait()
        c0, t0 = time.thread_time(), time.perf_counter()
        self.run(step, tag)
        return time.thread_time() - c0, time.perf_counter() - t0


def convert_image(image_path, output_path):
    """Source 000's service/image.py convert_image, as the apps run it."""
    from PIL import Image
    image = Image.open(image_path)
    image = image.convert("RGB")
    for _ in range(4):
        image = image.rotate(180)
    image.save(output_path)


def crowd_child(image_path, n, rounds, out_dir):
    """In this (fresh) interpreter, n threads convert rounds images each,
    all starting together: the process's CPU time per image."""
    from PIL import Image
    Image.init()  # a server imports Pillow and its plugins before its first upload
    ext = os.path.splitext(image_path)[1] or ".jpg"
    barrier = threading.Barrier(n)
    failed = []

    def work(i):
        try:
            barrier.wait()
            for r in range(rounds):
                convert_image(image_path, os.path.join(out_dir, "calibrate_crowd%d_%d%s" % (i, r, ext)))
        except BaseException as e:  # noqa: BLE001 - reported below, the run is void
            failed.append("thread %d: %r" % (i, e))
            barrier.abort()

    ths = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    c0, t0 = time.process_time(), time.perf_counter()
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    if failed:
        raise RuntimeError("%d of %d converting threads failed: %s" % (len(failed), n, "; ".join(failed[:3])))
    return {"n": n, "rounds": rounds, "cpu_seconds": cpu / (n * rounds), "wall_seconds": wall}


def measure_crowd(image_path, ns, rounds, out_dir):
    """crowd_child for each n, each in a fresh interpreter."""
    out = []
    for n in ns:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--crowd-child", str(n),
                            "--crowd-rounds", str(rounds), "--image", image_path, "--out-dir", out_dir],
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise RuntimeError("crowd of %d: %s" % (n, p.stderr[-300:]))
        out.append(json.loads(p.stdout.strip().splitlines()[-1]))
    return out


def median_time(fn, repeat):
    """Median wall time of repeat runs (for I/O steps)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--image", required=True)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--inserts", type=int, default=50)
    p.add_argument("--out-dir", default=".")
    p.add_argument("--crowd", default="1,6,20")
    p.add_argument("--crowd-rounds", type=int, default=2)
    p.add_argument("--crowd-child", type=int, default=0)
    p.add_argument("--probe-seconds", type=float, default=0.5)
    a = p.parse_args()
    if a.crowd_rounds < 1:
        p.error("--crowd-rounds: want at least 1, got %d" % a.crowd_rounds)
    if a.crowd_child > 0:
        print(json.dumps(crowd_child(a.image, a.crowd_child, a.crowd_rounds, a.out_dir)))
        return
    crowd_ns = [int(x) for x in a.crowd.split(",") if x.strip()]
    if not crowd_ns or crowd_ns[0] != 1 or any(n < 1 for n in crowd_ns) or crowd_ns != sorted(set(crowd_ns)):
        p.error("--crowd: want ascending counts starting at 1, e.g. 1,6,20; got %r" % a.crowd)
    out = {}

    steps = ImageSteps(a.image, a.out_dir)
    per = {st: measure_step(steps, st, a.repeat, a.probe_seconds) for st in STEPS}
    pipe = [per[st] for st in STEPS if st != "sha256"]
    out["image"] = {"seconds": sum(x["seconds"] for x in pipe),
                    "width": steps.size[0], "height": steps.size[1], "bytes": os.path.getsize(a.image),
                    "steps": per,
                    "crowd": measure_crowd(a.image, crowd_ns, a.crowd_rounds, a.out_dir)}
    for f in os.listdir(a.out_dir):
        if f.startswith("calibrate_"):
            os.remove(os.path.join(a.out_dir, f))
    del steps

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
