"""Source 003's FastAPI app (a def handler), served by uvicorn or by
gunicorn with uvicorn workers. Same knobs as app003_flask.py; the route is
/test-fast as in the source, with /io and /cpu by name.
"""
import datetime
import os
import time

from fastapi import FastAPI

from _conclab import env_int, env_str, sum_of_squares, thread_name, wait_seconds

app = FastAPI()


def _io(s):
    print(f'start-time - {datetime.datetime.now()}')
    time.sleep(wait_seconds(s, "CONCLAB_WAIT_S", 10.0))
    print(f'finish-time - {datetime.datetime.now()}')
    return 'Done!'


def _cpu(n):
    print(f'start-time - {datetime.datetime.now()}')
    sum_of_squares(int(n or env_int("CONCLAB_N", 10_000_000)))
    print(f'finish-time - {datetime.datetime.now()}')
    return 'Done!'


@app.get('/ready')
async def ready():
    return {"ok": True, "pid": os.getpid()}


@app.get('/test-fast')
def test(s: str = None, n: str = None):
    return _cpu(n) if env_str("CONCLAB_MODE", "io") == "cpu" else _io(s)


@app.get('/io')
def io(s: str = None):
    _io(s)
    return {"ok": True, "pid": os.getpid(), "thread": thread_name()}


@app.get('/cpu')
def cpu(n: str = None):
    _cpu(n)
    return {"ok": True, "pid": os.getpid(), "thread": thread_name()}


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
