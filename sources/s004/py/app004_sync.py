"""Source 004's sync app: a def handler inserting each posted user with a
sync driver (PyMySQL, or SQLite) — FastAPI runs it on its thread pool.

POST /users {"email", "password"} inserts a row (the table's id records the
arrival order); GET /users lists emails in id order; DELETE /users empties
the table. CONCLAB_DB_DELAY_S (or ?delay=S on the POST) adds a blocking wait inside the insert to
stand in for a slow database (the source's Docker MySQL on Windows took
~0.7 s per request); CONCLAB_TABLE names the table.
"""
import os
import time

from fastapi import FastAPI
from pydantic import BaseModel

from _conclab import SyncDB, env_float, table_name

app = FastAPI()
db = SyncDB(table_name("conclab_users"), ["email", "password"])
db.create()


class UserIn(BaseModel):
    email: str
    password: str


@app.get("/ready")
async def ready():
    return {"ok": True, "pid": os.getpid()}


@app.post("/users")
def create_user(user: UserIn, delay: float = None):
    if delay is None:
        delay = env_float("CONCLAB_DB_DELAY_S", 0.0)
    if delay > 0:
        time.sleep(delay)
    db.insert({"email": user.email, "password": user.password})
    return {"email": user.email}


@app.get("/users")
def list_users():
    return {"emails": db.rows("email")}


@app.delete("/users")
def clear_users():
    db.clear()
    return {"ok": True}


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
