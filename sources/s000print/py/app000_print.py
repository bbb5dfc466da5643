"""Source 000, chapter 2 recap: print() per request under uvicorn with
PYTHONUNBUFFERED=1 (the Go side sets it), so every print is a write(2).

  /doPrint       async def handler calling print() CONCLAB_PRINT_LINES times:
                 each line a blocking write system call on the event loop
  /doPrintAsync  async def handler handing its lines to a buffered async
                 writer: one background task writes what has accumulated in
                 one os.write, off the loop (asyncio.to_thread)
  /dontPrint     async def handler that prints nothing

The source shows only the table for these endpoints (its chapter 2 code is
not in the excerpt); this is conclab's reading of "sync print" vs "async
print" vs none. ?lines= overrides the line count per request.
"""
import asyncio
import os
import sys

from fastapi import FastAPI

from _conclab import env_int

app = FastAPI()


def _lines(lines):
    return int(lines) if lines else env_int("CONCLAB_PRINT_LINES", 100)


@app.get("/ready")
async def ready():
    return {"ok": True, "pid": os.getpid()}


@app.get("/doPrint")
async def do_print(lines: str = None):
    n = _lines(lines)
    for i in range(n):
        print(f"doPrint line {i}")
    return {"printed": n}


class AsyncWriter:
    """Buffered async writer: callers append, one task drains to fd 1."""

    def __init__(self):
        self.buf = []
        self.event = None
        self.task = None

    def write(self, line):
        if self.event is None:
            self.event = asyncio.Event()
            self.task = asyncio.get_running_loop().create_task(self._drain())
        self.buf.append(line)
        self.event.set()

    async def _drain(self):
        fd = sys.stdout.fileno()
        while True:
            await self.event.wait()
            self.event.clear()
            data, self.buf = "".join(self.buf).encode(), []
            if data:
                await asyncio.to_thread(os.write, fd, data)


writer = AsyncWriter()


@app.get("/doPrintAsync")
async def do_print_async(lines: str = None):
    n = _lines(lines)
    for i in range(n):
        writer.write(f"doPrintAsync line {i}\n")
    await asyncio.sleep(0)
    return {"printed": n}


@app.get("/dontPrint")
async def dont_print(lines: str = None):
    return {"printed": 0}


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
