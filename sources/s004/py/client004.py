"""Source 004's clients: 26 POSTs (A@A ... Z@Z plus a password), then the
order the rows landed in. --mode:

  sync        a for loop of requests.post
  fakeasync   requests.post inside async def coroutines, gathered: no await,
              so they run one after another (the source's "async" client
              that calls a blocking library)
  aiohttp     aiohttp.ClientSession posts, gathered

Prints JSON: elapsed_s, requests ([latency_ms, error] each), order (the first letters
of the emails in table order) and in_order.

usage: client004.py --base URL --mode aiohttp [--n 26] [--query delay=0]
"""
import argparse
import asyncio
import json
import string
import time


def payloads(n):
    letters = string.ascii_uppercase
    out = []
    for i in range(n):
        c = letters[i % 26] * (1 + i // 26)
        out.append({"email": f"{c}@{c}", "password": f"password{c}"})
    return out


def post_sync(url, body):
    import requests
    t0 = time.perf_counter()
    try:
        r = requests.post(url, json=body, timeout=60)
        return time.perf_counter() - t0, "" if r.status_code == 200 else f"http{r.status_code}"
    except Exception as e:  # noqa: BLE001 - counted as an error
        return time.perf_counter() - t0, type(e).__name__


async def send_request(url, body):
    # The source's trap: async def around a library that never yields.
    return post_sync(url, body)


async def fake_async(url, bodies):
    return await asyncio.gather(*[send_request(url, b) for b in bodies])


async def apost(session, url, body):
    t0 = time.perf_counter()
    try:
        async with session.post(url, json=body) as r:
            await r.read()
            return time.perf_counter() - t0, "" if r.status == 200 else f"http{r.status}"
    except Exception as e:  # noqa: BLE001 - counted as an error
        return time.perf_counter() - t0, type(e).__name__


async def real_async(url, bodies):
    import aiohttp
    async with aiohttp.ClientSession() as session:
        return await asyncio.gather(*[apost(session, url, b) for b in bodies])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--mode", required=True, choices=["sync", "fakeasync", "aiohttp"])
    p.add_argument("--n", type=int, default=26)
    p.add_argument("--query", default="", help="query string added to each POST")
    a = p.parse_args()
    import requests
    if a.mode == "aiohttp":
        import aiohttp  # noqa: F401
    url = a.base + "/users"
    requests.delete(url, timeout=60).raise_for_status()
    post_url = url + ("?" + a.query if a.query else "")
    bodies = payloads(a.n)
    start = time.perf_counter()
    if a.mode == "sync":
        res = [post_sync(post_url, b) for b in bodies]
    elif a.mode == "fakeasync":
        res = asyncio.run(fake_async(post_url, bodies))
    else:
        res = asyncio.run(real_async(post_url, bodies))
    elapsed = time.perf_counter() - start
    emails = requests.get(url, timeout=60).json()["emails"]
    sent = [b["email"] for b in bodies]
    print(json.dumps({
        "elapsed_s": elapsed,
        # one [latency_ms, error] per request ("" when it succeeded)
        "requests": [[r[0] * 1000, r[1]] for r in res],
        "order": "".join(e.split("@")[0][:1] for e in emails),
        "rows": len(emails),
        "in_order": emails == sent,
    }))


if __name__ == "__main__":
    main()
