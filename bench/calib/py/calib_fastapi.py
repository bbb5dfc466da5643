"""conclab's framework calibration app (FastAPI under uvicorn): endpoints that
do nothing, so a request's CPU is the stack's own — uvicorn's HTTP parsing and
response writing, Starlette's routing, FastAPI's validation and JSON encoding
— and, for the def endpoint, run_in_threadpool's hand-off to an AnyIO thread.
"""
from fastapi import FastAPI

app = FastAPI()


@app.get("/ready")
async def ready():
    return {"ok": True}


@app.get("/async")
async def nothing_async():
    return {"ok": True}


@app.get("/def")
def nothing_def():
    return {"ok": True}


# Per-request traces when CONCLAB_TRACE_DIR is set, as in the sources' apps,
# so the calibration pays what the compared apps pay.
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
