"""Times print() as source 000's print app makes it, for conclab's model,
and counts the write(2) calls a print() makes.

Prints one JSON line: the CPU time per line (seconds) of
  print_line  print(f"doPrint line {i}") with PYTHONUNBUFFERED=1 and stdout a
              file, as the real app's (two write(2) calls: the text, the end)
  write_line  one os.write of such a line to the same kind of file (what the
              model's own write(2) per line stands for)
  async_line  the buffered async writer's part on the loop: an f-string
              appended to a list
each the median over --repeat runs of --lines lines, CPU time
(time.process_time) in a child process, so other load does not skew it; and
  writes_per_print  the write(2) calls per print() with PYTHONUNBUFFERED=1,
              and buffered_writes_per_print without it (stdout a file: block
              buffered), counted by the kernel (/proc/self/io's syscw).
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
elif kind == "count":
    def syscw():
        with open("/proc/self/io") as f:
            for line in f:
                if line.startswith("syscw:"):
                    return int(line.split()[1])
        return -1
    sys.stdout.flush()
    w0 = syscw()
    for i in range(n):
        print(f"doPrint line {i}")
    sys.stdout.flush()
    w1 = syscw()
    d = (w1 - w0) if w0 >= 0 and w1 >= 0 else -1
else:
    buf = []
    t = time.process_time()
    for i in range(n):
        buf.append(f"doPrintAsync line {i}\n")
    d = time.process_time() - t
sys.stderr.write(repr(d / n))
'''


def measure(kind, lines, repeat, out_dir, unbuffered=True):
    runs = []
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
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
    out["writes_per_print"] = measure("count", 1000, 1, a.out_dir)
    out["buffered_writes_per_print"] = measure("count", 1000, 1, a.out_dir, unbuffered=False)
    out["lines"] = a.lines
    print(json.dumps(out))


if __name__ == "__main__":
    main()
