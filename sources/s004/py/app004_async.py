"""Source 004's async app: an async def handler awaiting an async database
session (aiomysql for MySQL; for SQLite the insert is awaited through
asyncio.to_thread). Same routes and knobs as app004_sync.py; here
CONCLAB_DB_DELAY_S is an awaited asyncio.sleep, as an async driver waits.
"""
import os
import asyncio

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
    if delay > 0:
        await asyncio.sleep(delay)
    await adb.insert({"email": user.email, "password": user.password})
    return {"email": user.email}


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
