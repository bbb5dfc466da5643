"""Measures source 003's CPU handler on this machine and prints one JSON
object (sources/s003 registers it with bench/calib):

  sumsq   sum(x**2 for x in list(range(n))), median CPU time alone, and per
          call in ten threads at once, each round of ten in a fresh
          interpreter, as a fresh server's first burst (median of --repeat
          rounds): what a call costs when ten lists of n ints are alive at
          once (fresh memory each, page faults and all), as in source 003's
          ten requests on one worker, rather than one after another on a
          warm heap. Rounds in one process reuse each other's freed memory:
          with them the model's one-worker rows spent 9 % less CPU than the
          real ones, against 2-8 % less with a fresh interpreter a round.

usage: calibrate_sum.py [--n 1000000] [--repeat 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

from _conclab import sum_of_squares


def median_cpu(fn, repeat):
    """Median CPU time (this thread) and wall time of repeat runs, and the
    CPU times."""
    cpu, wall = [], []
    for _ in range(repeat):
        c0, t0 = time.thread_time(), time.perf_counter()
        fn()
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - t0)
    return statistics.median(cpu), statistics.median(wall), cpu


def sumsq_child(n):
    """In this (fresh) interpreter, ten threads compute sum_of_squares(n)
    at once: the wall and process CPU time per call."""
    threads = [threading.Thread(target=sum_of_squares, args=(n,)) for _ in range(10)]
    t0, c0 = time.perf_counter(), time.process_time()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return {"wall_seconds": (time.perf_counter() - t0) / len(threads),
            "cpu_seconds": (time.process_time() - c0) / len(threads)}


def measure_threaded(n, rounds):
    """sumsq_child rounds times, each in a fresh interpreter."""
    out = []
    for _ in range(max(1, rounds)):
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--n", str(n)],
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise RuntimeError("ten sums of squares at once: %s" % p.stderr[-300:])
        out.append(json.loads(p.stdout.strip().splitlines()[-1]))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--child", action="store_true")
    a = p.parse_args()
    if a.n < 1 or a.repeat < 1:
        p.error("--n and --repeat must be at least 1")
    if a.child:
        print(json.dumps(sumsq_child(a.n)))
        return
    med, wall, runs = median_cpu(lambda: sum_of_squares(a.n), a.repeat)
    rounds = measure_threaded(a.n, a.repeat)
    print(json.dumps({"n": a.n, "seconds": med, "wall_seconds": wall, "runs": runs,
                      "threaded_seconds": statistics.median(r["wall_seconds"] for r in rounds),
                      "threaded_cpu_seconds": statistics.median(r["cpu_seconds"] for r in rounds)}))


if __name__ == "__main__":
    main()
