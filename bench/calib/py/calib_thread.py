"""Times a Python thread's start for conclab's model (bench/calib's
framework costs): threading.Thread(target=...).start() and join() of a
thread that returns at once (its start, bootstrap and end), CPU time per
thread (time.process_time) in a child process, the median of --repeat runs
of --n threads. Prints one JSON object: thread_start (seconds).
"""
import argparse
import json
import subprocess
import sys

CHILD = r'''
import sys, threading, time
n = int(sys.argv[1])
def nothing():
    pass
t = time.process_time()
for i in range(n):
    th = threading.Thread(target=nothing)
    th.start()
    th.join()
sys.stdout.write(repr((time.process_time() - t) / n))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    runs = sorted(float(subprocess.run([sys.executable, "-c", CHILD, str(a.n)], capture_output=True,
                                       text=True, check=True).stdout.strip()) for _ in range(a.repeat))
    print(json.dumps({"thread_start": runs[len(runs) // 2], "n": a.n}))


if __name__ == "__main__":
    main()
