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
