"""Source 001's bench.py: send N requests at once with httpx.AsyncClient and
time the whole batch. Prints one JSON object on stdout. Also used for source
003's "10 requests at once" (JMeter in the source); "threads" counts the
distinct (process, thread) pairs the server reported.

usage: bench001.py --base URL --path /sync-sleep [--n 10] [--wait S] [--query Q]
"""
import argparse
import asyncio
import json
import time

import httpx


async def one(client, url):
    t0 = time.perf_counter()
    try:
        r = await client.get(url)
        ok = r.status_code == 200
        thread = "" if ok else "http%d" % r.status_code
        if ok and r.headers.get("content-type", "").startswith("application/json"):
            body = r.json()
            thread = "%s/%s" % (body.get("pid", ""), body.get("thread", ""))
    except Exception as e:  # noqa: BLE001 - reported, not raised
        return (time.perf_counter() - t0, False, type(e).__name__)
    return (time.perf_counter() - t0, ok, thread)


async def run(base, path, n, wait):
    url = f"{base}{path}"
    if wait is not None:
        url += ("&" if "?" in url else "?") + f"s={wait}"
    async with httpx.AsyncClient(timeout=600) as client:
        start = time.perf_counter()
        res = await asyncio.gather(*[one(client, url) for _ in range(n)])
        elapsed = time.perf_counter() - start
    return elapsed, res


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", default="")
    p.add_argument("--path", default="", help="appended to --base; or give the whole URL as --path")
    p.add_argument("--n", type=int, default=10)
    p.add_argument("--wait", type=float, default=None)
    p.add_argument("--query", default="", help="extra query string, e.g. n=1000000")
    a = p.parse_args()
    path = a.path
    if a.query:
        path += ("&" if "?" in path else "?") + a.query
    elapsed, res = asyncio.run(run(a.base, path, a.n, a.wait))
    threads = {r[2] for r in res if r[1] and r[2]}
    print(json.dumps({
        "elapsed_s": elapsed,
        # one [latency_ms, error] per request, in sending order; error is ""
        # for a 200, "httpNNN" for another status, else the exception's type
        "requests": [[r[0] * 1000, "" if r[1] else r[2]] for r in res],
        "threads": len(threads),
    }))


if __name__ == "__main__":
    main()
