"""A client script as the sources' are: GETs --url --n times one after
another and prints elapsed_s and one [latency_ms, error] per request."""
import argparse
import json
import time
import urllib.error
import urllib.request

p = argparse.ArgumentParser()
p.add_argument("--url", required=True)
p.add_argument("--n", type=int, default=3)
a = p.parse_args()
res = []
start = time.perf_counter()
for _ in range(a.n):
    t0 = time.perf_counter()
    try:
        urllib.request.urlopen(a.url, timeout=30).read()
        res.append([(time.perf_counter() - t0) * 1000, ""])
    except urllib.error.HTTPError as e:
        res.append([(time.perf_counter() - t0) * 1000, "http%d" % e.code])
    except Exception as e:  # noqa: BLE001
        res.append([(time.perf_counter() - t0) * 1000, type(e).__name__])
print(json.dumps({"elapsed_s": time.perf_counter() - start, "requests": res, "threads": 1}))
