"""Measures what source 000's ProcessPool strategy really sends through its
process pool's pipes: run_in_executor(process_executor, convert_image,
image_path, output_path), as the app calls it, --n times on --image.

The bytes are counted where the parent process writes to and reads from
the pool's pipes (multiprocessing.connection.Connection's _send_bytes and
_recv_bytes, wrapped in this process only): the pickled call (the function
by reference and its two path strings) out, the pickled result (the output
path) back, plus the executor's own wake-up bytes. Prints one JSON object:
calls, bytes_out and bytes_in per call, and the paths' lengths.

usage: ipc_bytes.py --image PATH [--n 20] [--out-dir DIR]
"""
import argparse
import asyncio
import json
import multiprocessing.connection as mpc
import os
import sys
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


async def main(a):
    from app000_upload import ImageProcessor  # the app's own function, by reference
    wrap()
    ext = os.path.splitext(a.image)[1] or ".jpg"
    with ProcessPoolExecutor() as pool:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(pool, ImageProcessor.convert_image, a.image, os.path.join(a.out_dir, "warm" + ext))
        sent[:] = [0, 0]
        received[:] = [0, 0]
        for i in range(a.n):
            out = os.path.join(a.out_dir, "ipc_%d%s" % (i, ext))
            await loop.run_in_executor(pool, ImageProcessor.convert_image, a.image, out)
        s, r = list(sent), list(received)
    print(json.dumps({"calls": a.n, "bytes_out": s[0] / a.n, "bytes_in": r[0] / a.n,
                      "writes": s[1] / a.n, "reads": r[1] / a.n,
                      "path_chars": len(a.image) + len(os.path.join(a.out_dir, "ipc_0" + ext))}))


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
