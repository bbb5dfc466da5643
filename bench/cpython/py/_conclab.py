"""Shared helpers for conclab's reference apps (not part of any source).

Every app reads its knobs from CONCLAB_* environment variables so that the
Go side (bench/cpython) can scale the sources' 1 s / 10 s waits down for tests.
The database is MySQL/MariaDB when CONCLAB_DB_HOST is set (PyMySQL for sync
code, aiomysql for async code, as the sources use), otherwise SQLite from the
standard library at CONCLAB_SQLITE (a file path).
"""
import asyncio
import os
import sqlite3
import threading
import time


def env_float(name, default):
    v = os.environ.get(name, "")
    return float(v) if v else default


def env_int(name, default):
    v = os.environ.get(name, "")
    return int(v) if v else default


def env_str(name, default):
    return os.environ.get(name, "") or default


def wait_seconds(request_value, env_name, default):
    """A wait from the query string (?s=0.2) or else the environment."""
    if request_value is not None and request_value != "":
        return float(request_value)
    return env_float(env_name, default)


def thread_name():
    """The current thread's name and id: AnyIO names every worker thread
    alike, so the id tells them apart."""
    t = threading.current_thread()
    return "%s#%d" % (t.name, t.ident)


def sum_of_squares(n):
    # Source 003: num_list = list(range(10000000)); sum(x**2 for x in num_list)
    num_list = list(range(n))
    return sum(x**2 for x in num_list)


# ---------------------------------------------------------------- database

def db_kind():
    return "mysql" if os.environ.get("CONCLAB_DB_HOST") else "sqlite"


def _mysql_kwargs():
    return dict(
        host=os.environ["CONCLAB_DB_HOST"],
        port=env_int("CONCLAB_DB_PORT", 3306),
        user=env_str("CONCLAB_DB_USER", "root"),
        password=os.environ.get("CONCLAB_DB_PASSWORD", ""),
        database=env_str("CONCLAB_DB_NAME", "conclab"),
        autocommit=True,
    )


def table_name(default):
    name = env_str("CONCLAB_TABLE", default)
    if not name.replace("_", "").isalnum():
        raise ValueError("CONCLAB_TABLE must be letters, digits and _: %r" % name)
    return name


# SQLite allows one writer at a time; a writer that finds the database
# locked sleeps in SQLite's busy handler with growing back-off (up to 100 ms
# a time), which would make 26 concurrent inserts look far slower than a
# server database that queues them. Writers in this process queue on a lock
# instead.
_sqlite_write_lock = threading.Lock()


class SyncDB:
    """One connection per thread (PyMySQL / sqlite3 connections are not
    thread-safe); inserts are committed at once. SQLite runs in WAL mode with
    synchronous=NORMAL, and writers in one process take turns on a lock."""

    def __init__(self, table, columns):
        self.table = table
        self.columns = columns
        self.local = threading.local()
        self.kind = db_kind()

    def conn(self):
        c = getattr(self.local, "conn", None)
        if c is None:
            if self.kind == "mysql":
                import pymysql
                c = pymysql.connect(**_mysql_kwargs())
            else:
                c = sqlite3.connect(env_str("CONCLAB_SQLITE", "conclab.sqlite3"), timeout=30,
                                    isolation_level=None, check_same_thread=False)
                c.execute("PRAGMA journal_mode=WAL")
                c.execute("PRAGMA synchronous=NORMAL")
            self.local.conn = c
        return c

    def create(self):
        c = self.conn()
        cols = ", ".join("%s VARCHAR(512)" % k for k in self.columns)
        if self.kind == "mysql":
            ddl = ("CREATE TABLE IF NOT EXISTS %s (id INT AUTO_INCREMENT PRIMARY KEY, %s, "
                   "created_at DOUBLE)" % (self.table, cols))
        else:
            ddl = ("CREATE TABLE IF NOT EXISTS %s (id INTEGER PRIMARY KEY AUTOINCREMENT, %s, "
                   "created_at REAL)" % (self.table, cols))
        cur = c.cursor()
        cur.execute(ddl)
        cur.close()

    def _sql(self):
        ph = "%s" if self.kind == "mysql" else "?"
        return "INSERT INTO %s (%s, created_at) VALUES (%s, %s)" % (
            self.table, ", ".join(self.columns), ", ".join([ph] * len(self.columns)), ph)

    def insert(self, values):
        cur = self.conn().cursor()
        args = tuple(values[k] for k in self.columns) + (time.time(),)
        if self.kind == "sqlite":
            with _sqlite_write_lock:
                cur.execute(self._sql(), args)
        else:
            cur.execute(self._sql(), args)
        cur.close()

    def rows(self, column):
        cur = self.conn().cursor()
        cur.execute("SELECT %s FROM %s ORDER BY id" % (column, self.table))
        out = [r[0] for r in cur.fetchall()]
        cur.close()
        return out

    def clear(self):
        cur = self.conn().cursor()
        cur.execute("DELETE FROM %s" % self.table)
        cur.close()

    def drop(self):
        cur = self.conn().cursor()
        cur.execute("DROP TABLE IF EXISTS %s" % self.table)
        cur.close()


class AsyncDB:
    """Async inserts: aiomysql's pool for MySQL (a real awaitable driver);
    for SQLite, which has no async driver in the standard library, the sync
    insert is awaited through asyncio.to_thread so the loop stays free."""

    def __init__(self, sync_db):
        self.sync = sync_db
        self.pool = None
        self.lock = None

    async def insert(self, values):
        if self.sync.kind != "mysql":
            await asyncio.to_thread(self.sync.insert, values)
            return
        if self.pool is None:
            if self.lock is None:
                self.lock = asyncio.Lock()
            async with self.lock:
                if self.pool is None:
                    import aiomysql
                    kw = _mysql_kwargs()
                    kw["db"] = kw.pop("database")
                    self.pool = await aiomysql.create_pool(minsize=1, maxsize=20, **kw)
        async with self.pool.acquire() as conn:
            async with conn.cursor() as cur:
                await cur.execute(self.sync._sql(),
                                  tuple(values[k] for k in self.sync.columns) + (time.time(),))

    async def close(self):
        if self.pool is not None:
            self.pool.close()
            await self.pool.wait_closed()


# ---------------------------------------------------------------- traces
#
# When CONCLAB_TRACE_DIR is set, every request records its phases to
# CONCLAB_TRACE_DIR/trace-PID.tsv, one line each: request number (per
# process), phase, thread, start and end in Unix nanoseconds (the clock the
# Go side uses too). FastAPI apps record queue (arrival at the app until the
# endpoint starts), handler (the endpoint, on the loop for async def or on
# the AnyIO worker thread that ran a def) and respond (until the response's
# last byte was sent); Flask apps the handler on its gthread thread. Off, it
# costs one environment lookup per request.

import contextvars
import itertools

_trace_lock = threading.Lock()
_trace_file = None
_trace_pid = None
_trace_seq = itertools.count(1)
_trace_state = contextvars.ContextVar("conclab_trace", default=None)


def _trace_out():
    global _trace_file, _trace_pid
    d = os.environ.get("CONCLAB_TRACE_DIR")
    if not d:
        return None
    if _trace_file is None or _trace_pid != os.getpid():  # opened after a fork
        with _trace_lock:
            if _trace_file is None or _trace_pid != os.getpid():
                os.makedirs(d, exist_ok=True)
                _trace_file = open(os.path.join(d, "trace-%d.tsv" % os.getpid()), "a", buffering=1)
                _trace_pid = os.getpid()
    return _trace_file


def trace_record(req, phase, start_ns, end_ns, thread=None):
    """Record one interval of request req (thread: a lane name, default the
    calling thread's name#ident)."""
    f = _trace_out()
    if f is None:
        return
    if thread is None:
        t = threading.current_thread()
        thread = "%s#%d" % (t.name, t.ident)
    line = "%d\t%s\t%s\t%d\t%d\n" % (req, phase, thread, start_ns, max(end_ns, start_ns))
    with _trace_lock:
        f.write(line)


class TraceMiddleware:
    """ASGI middleware recording each HTTP request's queue and respond
    intervals; the endpoint's own interval is recorded by the patched
    fastapi.routing.run_endpoint_function (trace_fastapi)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("path") == "/ready" or _trace_out() is None:
            return await self.app(scope, receive, send)
        st = {"req": next(_trace_seq), "arrive": time.time_ns(), "hstart": None, "hend": None, "sent": None}
        token = _trace_state.set(st)

        async def traced_send(message):
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                st["sent"] = time.time_ns()

        try:
            await self.app(scope, receive, traced_send)
        finally:
            _trace_state.reset(token)
            now = time.time_ns()
            hs = st["hstart"] or now
            he = st["hend"] or hs
            trace_record(st["req"], "queue", st["arrive"], hs, "loop queue")
            trace_record(st["req"], "respond", he, st["sent"] or now, "responses")


def _patch_fastapi():
    import fastapi.routing as routing
    from starlette.concurrency import run_in_threadpool

    if getattr(routing.run_endpoint_function, "_conclab", False):
        return
    original = routing.run_endpoint_function

    async def run_endpoint_function(*, dependant, values, is_coroutine, **kw):
        st = _trace_state.get()
        if st is None:
            return await original(dependant=dependant, values=values, is_coroutine=is_coroutine, **kw)
        if is_coroutine:
            st["hstart"] = time.time_ns()
            try:
                return await original(dependant=dependant, values=values, is_coroutine=is_coroutine, **kw)
            finally:
                st["hend"] = time.time_ns()
                trace_record(st["req"], "handler", st["hstart"], st["hend"], "loop")
        call = dependant.call

        def run(**kv):
            st["hstart"] = time.time_ns()
            try:
                return call(**kv)
            finally:
                st["hend"] = time.time_ns()
                trace_record(st["req"], "handler", st["hstart"], st["hend"])

        return await run_in_threadpool(run, **values)

    run_endpoint_function._conclab = True
    routing.run_endpoint_function = run_endpoint_function


def trace_fastapi(app):
    """Make a FastAPI app record traces when CONCLAB_TRACE_DIR is set."""
    _patch_fastapi()
    app.add_middleware(TraceMiddleware)
    return app


def trace_flask(app):
    """Make a Flask app record each request's handler interval on its
    thread when CONCLAB_TRACE_DIR is set."""
    inner = app.wsgi_app

    def wsgi_app(environ, start_response):
        if environ.get("PATH_INFO") == "/ready" or _trace_out() is None:
            return inner(environ, start_response)
        req, t0 = next(_trace_seq), time.time_ns()
        try:
            return inner(environ, start_response)
        finally:
            trace_record(req, "handler", t0, time.time_ns())

    app.wsgi_app = wsgi_app
    return app
