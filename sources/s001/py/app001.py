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

import httpx
import requests
from fastapi import Depends, FastAPI

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


# Exercise 3: dependencies follow the same rule. Both handlers are async
# def; only their dependency differs: it opens a connection with a
# blocking connect (the wait).
def get_conn(s: str = None):
    """def 의존성: FastAPI runs it on AnyIO's threads"""
    time.sleep(wait_seconds(s, WAIT_ENV, 0.1))
    return thread_name()


async def get_conn_async(s: str = None):
    """async def 의존성 안의 블로킹 connect: runs on the event loop"""
    time.sleep(wait_seconds(s, WAIT_ENV, 0.1))
    return thread_name()


@app.get("/dep-def")
async def dep_def(conn: str = Depends(get_conn)):
    return {"ok": True, "thread": conn}


@app.get("/dep-async")
async def dep_async(conn: str = Depends(get_conn_async)):
    return {"ok": True, "thread": conn}


# Exercise 4: an external API called CONCLAB_API_CALLS times per request
# (the lab's loopback stand-in at CONCLAB_API_URL).
def api_url():
    return os.environ.get("CONCLAB_API_URL", "http://127.0.0.1:9/")


def api_calls():
    return env_int("CONCLAB_API_CALLS", 10)


@app.get("/api-requests-async")
async def api_requests_async():
    """async def + requests: every call blocks the event loop"""
    for _ in range(api_calls()):
        requests.get(api_url(), timeout=60)
    return {"ok": True, "thread": thread_name()}


@app.get("/api-requests-def")
def api_requests_def():
    """def + requests: the calls block one of AnyIO's threads"""
    for _ in range(api_calls()):
        requests.get(api_url(), timeout=60)
    return {"ok": True, "thread": thread_name()}


@app.get("/api-httpx-in-turn")
async def api_httpx_in_turn():
    """async def + httpx, one await after another"""
    async with httpx.AsyncClient(timeout=60) as client:
        for _ in range(api_calls()):
            await client.get(api_url())
    return {"ok": True, "thread": thread_name()}


@app.get("/api-httpx-gather")
async def api_httpx_gather():
    """async def + httpx, the calls gathered"""
    async with httpx.AsyncClient(timeout=60) as client:
        await asyncio.gather(*[client.get(api_url()) for _ in range(api_calls())])
    return {"ok": True, "thread": thread_name()}


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
