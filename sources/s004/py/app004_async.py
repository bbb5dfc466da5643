"""Source 004's async app: an async def handler awaiting an async database
session (aiomysql for MySQL; for SQLite the insert is awaited through
asyncio.to_thread). Same routes and knobs as app004_sync.py; here
CONCLAB_DB_DELAY_S is an awaited asyncio.sleep, as an async driver waits.
"""
import os
import asyncio
import random

from fastapi import FastAPI
from pydantic import BaseModel

from _conclab import AsyncDB, SyncDB, env_float, table_name

app = FastAPI()
db = SyncDB(table_name("conclab_users"), ["email", "password"])
db.create()
adb = AsyncDB(db)


class UserIn(BaseModel):
    email: str
    password: str


@app.get("/ready")
async def ready():
    return {"ok": True, "pid": os.getpid()}


@app.post("/users")
async def create_user(user: UserIn, delay: float = None):
    if delay is None:
        delay = env_float("CONCLAB_DB_DELAY_S", 0.0)
    delay += random.uniform(0, env_float("CONCLAB_DB_JITTER_S", 0.0))
    if delay > 0:
        await asyncio.sleep(delay)
    await adb.insert({"email": user.email, "password": user.password})
    return {"email": user.email}


# The source's closing question (not part of its app): one async handler
# waiting for two things, in a row or gathered. Each wait is the insert's
# (CONCLAB_DB_DELAY_S plus up to CONCLAB_DB_JITTER_S); nothing is written.
def branch_wait():
    return env_float("CONCLAB_DB_DELAY_S", 0.0) + random.uniform(0, env_float("CONCLAB_DB_JITTER_S", 0.0))


@app.get("/branches/in-a-row")
async def branches_in_a_row():
    await asyncio.sleep(branch_wait())
    await asyncio.sleep(branch_wait())
    return {"ok": True}


@app.get("/branches/gathered")
async def branches_gathered():
    await asyncio.gather(asyncio.sleep(branch_wait()), asyncio.sleep(branch_wait()))
    return {"ok": True}


@app.get("/users")
def list_users():
    return {"emails": db.rows("email")}


@app.delete("/users")
def clear_users():
    db.clear()
    return {"ok": True}


@app.on_event("shutdown")
async def _shutdown():
    await adb.close()


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
