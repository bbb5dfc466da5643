"""Side-by-side start-to-ready and execute round trip: conclab vs ipykernel.

Both kernels are driven the same way through jupyter_client in one run:
  ready    = KernelManager.start_kernel() until KernelClient.wait_for_ready()
             returns (kernel_info answered and IOPub connected), per start;
  execute  = execute_request of a trivial cell ("1") until its execute_reply
             and the idle status on IOPub have both arrived, per cell.

Usage: .venv/bin/python scripts/bench-kernel.py [--starts N] [--executes N] [--json FILE]
Needs the conclab kernelspec installed (JUPYTER_PATH may point at it) and
ipykernel (both from the pinned .venv). Run with .venv/bin/python.
"""
import argparse
import json
import statistics
import sys
import time

from jupyter_client.manager import KernelManager


def start(name):
    t0 = time.perf_counter()
    km = KernelManager(kernel_name=name)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc, time.perf_counter() - t0


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=False)


def roundtrip(kc, code):
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    got_reply = got_idle = False
    while not (got_reply and got_idle):
        if not got_reply:
            try:
                r = kc.get_shell_msg(timeout=10)
                if r["parent_header"].get("msg_id") == msg_id:
                    got_reply = r["content"]["status"] == "ok" or sys.exit("execute failed: %r" % r["content"])
            except Exception as e:  # noqa: BLE001
                sys.exit("no execute_reply: %r" % e)
        if not got_idle:
            m = kc.get_iopub_msg(timeout=10)
            if (m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "status"
                    and m["content"]["execution_state"] == "idle"):
                got_idle = True
    return time.perf_counter() - t0


def measure(name, starts, executes, code):
    readies = []
    for _ in range(starts):
        km, kc, ready = start(name)
        readies.append(ready)
        stop(km, kc)
    km, kc, _ = start(name)
    for _ in range(10):  # warm up
        roundtrip(kc, code)
    rts = [roundtrip(kc, code) for _ in range(executes)]
    stop(km, kc)
    q = statistics.quantiles(rts, n=20)
    return {
        "kernel": name,
        "ready_s_median": statistics.median(readies),
        "ready_s_max": max(readies),
        "execute_ms_median": statistics.median(rts) * 1000,
        "execute_ms_p95": q[18] * 1000,
        "starts": starts,
        "executes": executes,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--executes", type=int, default=200)
    ap.add_argument("--json", help="also write the results to FILE")
    args = ap.parse_args()
    from jupyter_client.kernelspec import KernelSpecManager
    have = KernelSpecManager().find_kernel_specs()
    missing = [k for k in ("conclab", "python3") if k not in have]
    if missing:
        sys.exit("bench-kernel: no kernelspec named %s (found: %s). Install conclab's with "
                 "`bin/conclab install --user` (or --prefix DIR and JUPYTER_PATH=DIR/share/jupyter); "
                 "python3's comes with ipykernel in the pinned .venv."
                 % (" or ".join(missing), ", ".join(sorted(have)) or "none"))
    res = [measure("conclab", args.starts, args.executes, "1"),
           measure("python3", args.starts, args.executes, "1")]
    c, p = res
    ratio = c["execute_ms_median"] / p["execute_ms_median"]
    print("%-10s %12s %12s %14s %12s" % ("kernel", "ready med s", "ready max s", "execute med ms", "exec p95 ms"))
    for r in res:
        print("%-10s %12.3f %12.3f %14.2f %12.2f" % (r["kernel"], r["ready_s_median"], r["ready_s_max"],
                                                    r["execute_ms_median"], r["execute_ms_p95"]))
    print("conclab/ipykernel execute median ratio: %.2f (target <= 0.40); conclab ready median %.3f s (target <= 0.5 s)"
          % (ratio, c["ready_s_median"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": res, "ratio": ratio}, f, indent=2)


if __name__ == "__main__":
    main()
