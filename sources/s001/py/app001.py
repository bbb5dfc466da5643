"""Source 001 ("def vs async def"): four endpoints that each wait.

Faithful to the book's main.py (and the /offload exercise); the wait is
CONCLAB_WAIT_S seconds (the source's 1 s) or ?s= per request, and each
response also names the thread that ran the wait so a client can count how
many pool threads were really used (AnyIO's 40-token limiter for def
handlers, asyncio's default executor of min(32, cpus+4) for to_thread).
"""
import os
import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from fastapi import FastAPI

from _conclab import env_int, thread_name, wait_seconds


@asynccontextmanager
async def knobs(app):
    """Not part of the source: the lab's knobs, only when set. AnyIO's
    limiter (Starlette's def handlers) gets CONCLAB_LIMITER tokens instead
    of 40; asyncio.to_thread's default executor gets min(32, CONCLAB_CPUS
    + 4) threads, as if os.cpu_count() were CONCLAB_CPUS."""
    tokens = env_int("CONCLAB_LIMITER", 0)
    if tokens > 0:
        import anyio.to_thread
        anyio.to_thread.current_default_thread_limiter().total_tokens = tokens
    cpus = env_int("CONCLAB_CPUS", 0)
    if cpus > 0:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=min(32, cpus + 4)))
    yield


app = FastAPI(lifespan=knobs)

WAIT_ENV = "CONCLAB_WAIT_S"


@app.get("/ready")
async def ready():
    return {"ok": True, "pid": os.getpid()}


@app.get("/sync-sleep")
def sync_sleep(s: str = None):
    """일반 함수 안에서 대기 (def: runs on AnyIO's thread pool)"""
    time.sleep(wait_seconds(s, WAIT_ENV, 1.0))
    return {"ok": True, "thread": thread_name()}


@app.get("/async-block")
async def async_block(s: str = None):
    """비동기 함수 안에서 일반 대기 (잘못된 코드: blocks the event loop)"""
    time.sleep(wait_seconds(s, WAIT_ENV, 1.0))
    return {"ok": True, "thread": thread_name()}


@app.get("/async-ok")
async def async_ok(s: str = None):
    """비동기 함수 안에서 비동기 대기"""
    await asyncio.sleep(wait_seconds(s, WAIT_ENV, 1.0))
    return {"ok": True, "thread": thread_name()}


def heavy_work(seconds: float):
    """시간이 오래 걸리는 동기 함수"""
    time.sleep(seconds)
    return "완료", thread_name()


@app.get("/offload")
async def offload(s: str = None):
    # asyncio.to_thread: asyncio's default executor, min(32, cpus + 4) threads
    result, thread = await asyncio.to_thread(heavy_work, wait_seconds(s, WAIT_ENV, 1.0))
    return {"result": result, "thread": thread}


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
