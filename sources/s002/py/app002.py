"""Source 002's mock downstream service: FastAPI /health waits 200 ms
(CONCLAB_WAIT_S, or ?s= per request) and returns {"status": "ok"}.

/health's wait is an awaited asyncio.sleep, so the service itself answers
any number of concurrent checks in one wave: the clients are what is
compared. /health-def is the same check as a def handler with time.sleep
(the source does not show its mock): AnyIO's 40 tokens answer at most 40
checks at once.
"""
import os
import asyncio
import time

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


@app.get("/health-def")
def health_def(s: str = None):
    # The same check as a def handler: FastAPI runs it on AnyIO's worker
    # threads (40 tokens), time.sleep blocking one thread each.
    time.sleep(wait_seconds(s, "CONCLAB_WAIT_S", 0.2))
    return {"status": "ok"}


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
