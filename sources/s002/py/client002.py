"""Source 002's three health-check clients, one per --mode:

  sequential  requests.get one after another            (sync_demo.py)
  threads     ThreadPoolExecutor(max_workers=W) + as_completed (thread_demo.py)
  asyncio     aiohttp.ClientSession + asyncio.gather    (async_demo.py)

Prints one JSON object: elapsed_s, requests ([latency_ms, error] each), cpu_s (this
client process's user+system CPU during the run) and rss_mb (peak).

usage: client002.py --url URL --mode threads [--workers 100] [--n 100]
"""
import argparse
import asyncio
import json
import resource
import time
from concurrent.futures import ThreadPoolExecutor, as_completed


def fetch(url):
    import requests
    t0 = time.perf_counter()
    try:
        r = requests.get(url, timeout=5)
        if r.status_code != 200:
            return time.perf_counter() - t0, "http%d" % r.status_code
        r.json()
        return time.perf_counter() - t0, ""
    except Exception as e:  # noqa: BLE001 - counted as an error
        return time.perf_counter() - t0, type(e).__name__


def check_sync(urls):
    return [fetch(u) for u in urls]


def check_thread(urls, workers):
    results = []
    with ThreadPoolExecutor(max_workers=workers) as executor:
        futures = {executor.submit(fetch, url): url for url in urls}
        for future in as_completed(futures):
            results.append(future.result())
    return results


async def afetch(session, url):
    t0 = time.perf_counter()
    try:
        async with session.get(url, timeout=5) as resp:
            if resp.status != 200:
                return time.perf_counter() - t0, "http%d" % resp.status
            await resp.json()
            return time.perf_counter() - t0, ""
    except Exception as e:  # noqa: BLE001 - counted as an error
        return time.perf_counter() - t0, type(e).__name__


async def check_async(urls):
    import aiohttp
    async with aiohttp.ClientSession() as session:
        tasks = [afetch(session, url) for url in urls]
        return await asyncio.gather(*tasks)


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--mode", required=True, choices=["sequential", "threads", "asyncio"])
    p.add_argument("--workers", type=int, default=100)
    p.add_argument("--n", type=int, default=100)
    a = p.parse_args()
    urls = [a.url for _ in range(a.n)]
    # Import the client library before the clock starts, as the sources'
    # scripts do at module level.
    if a.mode == "asyncio":
        import aiohttp  # noqa: F401
    else:
        import requests  # noqa: F401
    cpu0 = cpu_seconds()
    start = time.perf_counter()
    if a.mode == "sequential":
        res = check_sync(urls)
    elif a.mode == "threads":
        res = check_thread(urls, a.workers)
    else:
        res = asyncio.run(check_async(urls))
    elapsed = time.perf_counter() - start
    print(json.dumps({
        "elapsed_s": elapsed,
        # one [latency_ms, error] per request ("" when it succeeded)
        "requests": [[r[0] * 1000, r[1]] for r in res],
        "cpu_s": cpu_seconds() - cpu0,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }))


if __name__ == "__main__":
    main()
