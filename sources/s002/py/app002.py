"""Source 002's mock downstream service: FastAPI /health waits 200 ms
(CONCLAB_WAIT_S, or ?s= per request) and returns {"status": "ok"}.

The wait is an awaited asyncio.sleep, so the service itself answers any
number of concurrent checks in one wave: the clients are what is compared.
"""
import os
import asyncio

from fastapi import FastAPI

from _conclab import wait_seconds

app = FastAPI()


@app.get("/ready")
async def ready():
    return {"ok": True, "pid": os.getpid()}


@app.get("/health")
async def health(s: str = None):
    await asyncio.sleep(wait_seconds(s, "CONCLAB_WAIT_S", 0.2))
    return {"status": "ok"}


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
