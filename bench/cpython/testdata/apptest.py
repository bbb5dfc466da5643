"""bench/cpython's own test app (FastAPI): /ready, /sleep (a def handler on
AnyIO's threads), /block (an async def blocking the loop in time.sleep),
/awaited (an async def awaiting), each waiting ?s= seconds (CONCLAB_WAIT_S
by default), and /cpu?n= (a def handler summing squares)."""
import asyncio
import os
import time

from fastapi import FastAPI

from _conclab import sum_of_squares, thread_name, wait_seconds

app = FastAPI()


@app.get("/ready")
async def ready():
    return {"ok": True, "pid": os.getpid()}


@app.get("/sleep")
def sleep(s: str = None):
    time.sleep(wait_seconds(s, "CONCLAB_WAIT_S", 0.1))
    return {"ok": True, "pid": os.getpid(), "thread": thread_name()}


@app.get("/block")
async def block(s: str = None):
    time.sleep(wait_seconds(s, "CONCLAB_WAIT_S", 0.1))
    return {"ok": True, "pid": os.getpid(), "thread": thread_name()}


@app.get("/awaited")
async def awaited(s: str = None):
    await asyncio.sleep(wait_seconds(s, "CONCLAB_WAIT_S", 0.1))
    return {"ok": True, "pid": os.getpid(), "thread": thread_name()}


@app.get("/cpu")
def cpu(n: str = None):
    sum_of_squares(int(n or 100000))
    return {"ok": True, "pid": os.getpid(), "thread": thread_name()}


from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
