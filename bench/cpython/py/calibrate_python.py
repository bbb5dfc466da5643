"""Times print() as source 000's print app makes it, and a thread's start,
for conclab's model.

Prints one JSON line: the CPU time per line (seconds) of
  print_line  print(f"doPrint line {i}") with PYTHONUNBUFFERED=1 and stdout a
              file, as the real app's (two write(2) calls: the text, the end)
  write_line  one os.write of such a line to the same kind of file (what the
              model's own write(2) per line stands for)
  async_line  the buffered async writer's part on the loop: an f-string
              appended to a list
and per thread of
  thread_start  threading.Thread(target=...).start() and join() of a thread
              that returns at once (its start, bootstrap and end)
Each is the median over --repeat runs of --lines lines, CPU time
(time.process_time) in a child process, so other load does not skew it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import os, sys, time
n, kind = int(sys.argv[1]), sys.argv[2]
if kind == "print":
    t = time.process_time()
    for i in range(n):
        print(f"doPrint line {i}")
    d = time.process_time() - t
elif kind == "write":
    fd = sys.stdout.fileno()
    lines = [f"doPrint line {i}\n".encode() for i in range(n)]
    t = time.process_time()
    for b in lines:
        os.write(fd, b)
    d = time.process_time() - t
elif kind == "thread":
    import threading
    def nothing():
        pass
    t = time.process_time()
    for i in range(n):
        th = threading.Thread(target=nothing)
        th.start()
        th.join()
    d = time.process_time() - t
else:
    buf = []
    t = time.process_time()
    for i in range(n):
        buf.append(f"doPrintAsync line {i}\n")
    d = time.process_time() - t
sys.stderr.write(repr(d / n))
'''


def measure(kind, lines, repeat, out_dir):
    runs = []
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for _ in range(repeat):
        with tempfile.TemporaryFile(dir=out_dir) as f:
            p = subprocess.run([sys.executable, "-c", CHILD, str(lines), kind], stdout=f,
                               stderr=subprocess.PIPE, env=env, check=True)
        runs.append(float(p.stderr.decode().strip().splitlines()[-1]))
    runs.sort()
    return runs[len(runs) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out-dir", default=None)
    a = ap.parse_args()
    out = {k + "_line": measure(k, a.lines, a.repeat, a.out_dir) for k in ("print", "write", "async")}
    out["thread_start"] = measure("thread", max(a.lines // 20, 50), a.repeat, a.out_dir)
    out["lines"] = a.lines
    print(json.dumps(out))


if __name__ == "__main__":
    main()
