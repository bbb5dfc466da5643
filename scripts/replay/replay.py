"""Session replay: drives the real conclab kernel through jupyter_client the
way people use a notebook, over every notebook given:

  1. run all cells;
  2. run all cells again in the same kernel (nothing may fail); on the way,
  3. interrupt the first long cell (a benchmark) mid-run, then run it again
     (it succeeds) and go on with the cells after it (so the cells after an
     interrupted one are seen to run too; without the "again" phase, the
     interrupt is a phase of its own after the first run);
  4. restart the kernel, run a later cell first: it fails with
     "undefined: x", x an identifier an earlier cell defines; then run all
     cells (the earlier cells, the later one and the rest succeed): the
     restart-and-run-all of a fresh kernel is phase 1, so one pass covers
     both;
  5. shut the kernel down: no process started in the session may be left
     (found by a marker variable in the kernel's environment, which every
     process it starts inherits).

Failures are judged by message type: an output with output_type "error",
an execute_reply whose status is not "ok". A notebook's own shape check
(it panics with "did NOT hold" when measured timings fall outside the bands
it expects; scripts/test.d/50-notebook.sh owns those) is reported but is not
a session failure: this suite checks that sessions never break, not timings.

Usage: replay.py [--kernel NAME] [--quick] [--only PHASES] NOTEBOOK...
(PHASES: again,interrupt,restart; default all)
Exit status 0 when every notebook replayed, 1 otherwise. The kernelspec must
be found by Jupyter (JUPYTER_PATH).
"""

import argparse
import json
import os
import queue
import re
import sys
import time
import uuid

from jupyter_client.manager import KernelManager

CELL_TIMEOUT = 300  # seconds per cell, as 50-notebook's nbconvert pass
LONG_CELL = 1.0  # a cell that ran this long (seconds) counts as long
SHAPE_MISS = "did NOT hold"
MARKER_ENV = "CONCLAB_REPLAY_MARK"
# The ename of an interrupted cell's error: the conclab kernel's, and
# ipykernel's (the driver works with any kernel).
INTERRUPT_NAMES = {"Interrupted", "KeyboardInterrupt"}


class Failure(Exception):
    pass


def log(*args):
    print("replay:", *args, flush=True)


def code_cells(path):
    """The notebook's non-empty code cells as (number, source); number is the
    1-based position among all cells, as `conclab run` names cells."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    cells = []
    for i, c in enumerate(nb["cells"]):
        if c.get("cell_type") != "code":
            continue
        src = c["source"] if isinstance(c["source"], str) else "".join(c["source"])
        if src.strip():
            cells.append((i + 1, src))
    return cells


def first_line(src):
    line = src.strip().split("\n", 1)[0]
    return line if len(line) <= 60 else line[:59] + "…"


class Result:
    def __init__(self, status, outputs, seconds, reply):
        self.status = status
        self.outputs = outputs
        self.seconds = seconds
        self.reply = reply

    def errors(self):
        return [o for o in self.outputs if o["output_type"] == "error"]

    def shape_miss(self):
        """The notebook's shape check missed (and nothing else failed)."""
        errs = self.errors()
        return bool(errs) and all(SHAPE_MISS in e.get("evalue", "") for e in errs)

    def describe(self):
        errs = self.errors()
        if errs:
            e = errs[0]
            return "%s: %s" % (e.get("ename"), e.get("evalue", "")[:400])
        r = self.reply or {}
        return "reply status %r %s" % (self.status, r.get("evalue", "") or "")


class Session:
    """A conclab kernel and a client, started in the notebook's directory."""

    def __init__(self, kernel, cwd, marker):
        env = dict(os.environ)
        env[MARKER_ENV] = marker
        self.km = KernelManager(kernel_name=kernel)
        self.km.start_kernel(env=env, cwd=cwd)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)

    def restart(self):
        self.km.restart_kernel(now=False)
        self.kc.wait_for_ready(timeout=60)
        self.drain()

    def drain(self):
        while True:
            try:
                self.kc.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                return

    def execute(self, code, interrupt_after=None):
        """Runs code; returns a Result once the kernel is idle again and the
        execute_reply arrived. interrupt_after (seconds): send an interrupt
        that long after the kernel reported the cell running."""
        start = time.monotonic()
        msg_id = self.kc.execute(code, store_history=True, allow_stdin=False)
        outputs, idle, reply = [], False, None
        started = None
        interrupted = False
        deadline = start + CELL_TIMEOUT
        while not idle or reply is None:
            now = time.monotonic()
            if now > deadline:
                raise Failure("cell did not finish within %ds" % CELL_TIMEOUT)
            wait = 0.5
            if interrupt_after is not None and started is not None and not interrupted:
                wait = max(0.0, min(wait, started + interrupt_after - now))
                if wait == 0.0:
                    self.km.interrupt_kernel()
                    interrupted = True
                    continue
            if not idle:
                try:
                    msg = self.kc.get_iopub_msg(timeout=max(wait, 0.01))
                except queue.Empty:
                    continue
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                t, c = msg["msg_type"], msg["content"]
                if t in ("execute_input", "status") and started is None and c.get("execution_state", "busy") == "busy":
                    started = time.monotonic()
                elif t == "status" and c["execution_state"] == "idle":
                    idle = True
                elif t in ("stream", "display_data", "execute_result", "error"):
                    o = dict(c)
                    o["output_type"] = t
                    outputs.append(o)
            else:
                try:
                    msg = self.kc.get_shell_msg(timeout=max(wait, 0.01))
                except queue.Empty:
                    continue
                if msg["parent_header"].get("msg_id") == msg_id:
                    reply = msg["content"]
        return Result(reply.get("status"), outputs, time.monotonic() - start, reply)

    def shutdown(self):
        try:
            self.kc.stop_channels()
        finally:
            self.km.shutdown_kernel(now=False)


def marked_processes(marker):
    """Processes (other than this one) whose environment holds the marker."""
    needle = ("%s=%s\0" % (MARKER_ENV, marker)).encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = f.read()
            if not (env.startswith(needle) or b"\0" + needle in env):
                continue
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            found.append((int(pid), cmd))
        except OSError:
            continue
    return found


# Identifiers a cell defines at top level: name := / a, b := / var / const /
# type / func, and imported package names.
DEF_RES = [
    re.compile(r"^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*:=", re.M),
    re.compile(r"^(?:var|const|type)\s+([A-Za-z_]\w*)", re.M),
    re.compile(r"^func\s+([A-Za-z_]\w*)", re.M),
]
IMPORT_RE = re.compile(r'^\s*(?:([A-Za-z_]\w*)\s+)?"([^"]+)"\s*$', re.M)
IDENT_RE = re.compile(r"\b[A-Za-z_]\w*\b")
GO_WORDS = set("""break case chan const continue default defer else fallthrough for func go
goto if import interface map package range return select struct switch type var
_ err ok true false nil iota""".split())


def definitions(src, imports=True):
    names = set()
    for r in DEF_RES:
        for m in r.finditer(src):
            names.update(n.strip() for n in m.group(1).split(","))
    if not imports:
        return names - GO_WORDS
    block = re.search(r"^import\s*\((.*?)^\)", src, re.M | re.S)
    for m in IMPORT_RE.finditer(block.group(1) if block else ""):
        names.add(m.group(1) or m.group(2).rsplit("/", 1)[-1])
    for m in re.finditer(r'^import\s+(?:([A-Za-z_]\w*)\s+)?"([^"]+)"', src, re.M):
        names.add(m.group(1) or m.group(2).rsplit("/", 1)[-1])
    return names - GO_WORDS


def later_cell(cells):
    """The last cell that uses an identifier only earlier cells define:
    (index into cells, that identifier set), or None. Imported package
    names do not count: the kernel resolves a package used without its
    import line (docs/kernel.md), so a cell that needs only those runs."""
    for k in range(len(cells) - 1, 0, -1):
        earlier = set()
        for _, src in cells[:k]:
            earlier |= definitions(src, imports=False)
        src = cells[k][1]
        own = definitions(src)
        code = re.sub(r'"(?:\\.|[^"\\])*"|`[^`]*`|//[^\n]*', " ", src)
        used = set(IDENT_RE.findall(code)) & (earlier - own)
        if used:
            return k, earlier - own
    return None


class Replay:
    def __init__(self, path, kernel):
        self.path = path
        self.name = os.path.basename(path)
        self.cells = code_cells(path)
        self.kernel = kernel
        self.failures = []
        self.shape_misses = []
        self.times = {}
        self.durations = {}  # cell index -> seconds per full run

    def fail(self, phase, msg):
        self.failures.append("%s: %s" % (phase, msg))
        log("  FAIL %s %s: %s" % (self.name, phase, msg))

    def check(self, phase, k, r, want_ok=True):
        """Records r's failure (a non-ok reply or an error output) for cell
        index k; returns whether it succeeded (a shape miss counts as run)."""
        number, src = self.cells[k]
        if r.status == "ok" and not r.errors():
            return True
        if r.shape_miss():
            self.shape_misses.append("%s cell %d: %s" % (phase, number, r.describe()))
            log("  shape check missed (%s, cell %d): %s" % (phase, number, r.describe()))
            return True
        if want_ok:
            self.fail(phase, "cell %d %r: %s" % (number, first_line(src), r.describe()))
        return False

    def run_all(self, s, phase, interrupt=False):
        """Runs every cell in order, stopping at the first failure. With
        interrupt, the first long cell is interrupted mid-run and run again
        (interrupt_cell) in its turn."""
        t = time.monotonic()
        ok = True
        k_long = self.first_long() if interrupt else None
        for k, _ in enumerate(self.cells):
            if k == k_long:
                r = self.interrupt_cell(s, k)
            else:
                r = s.execute(self.cells[k][1])
            self.durations.setdefault(k, []).append(r.seconds)
            if not self.check(phase, k, r):
                ok = False
                break  # later cells would fail for the same reason
        self.times[phase] = time.monotonic() - t
        return ok

    def first_long(self):
        """The index of the first cell that ran LONG_CELL or more in every
        run so far, or None (and a note: the interrupt is skipped)."""
        long_cells = [k for k, d in self.durations.items() if min(d) >= LONG_CELL]
        if not long_cells:
            # No cell runs long enough to be caught mid-run for sure: an
            # interrupt could land after it finished.
            log("  no cell ran %.1fs or more: interrupt skipped" % LONG_CELL)
            return None
        return min(long_cells)

    def interrupt_cell(self, s, k):
        """Interrupts cell k a third of the way into its shortest run so far,
        checks the interrupt error, then runs it again: returns that run's
        Result."""
        phase = "interrupt"
        number, src = self.cells[k]
        shortest = min(self.durations[k])
        after = shortest / 3
        r = s.execute(src, interrupt_after=after)
        errs = r.errors()
        if r.status != "error" or not errs:
            self.fail(phase, "cell %d %r (%.1fs long) interrupted after %.2fs: reply %r, %d error outputs; want an error reply with an error output"
                      % (number, first_line(src), shortest, after, r.status, len(errs)))
        elif errs[0].get("ename") not in INTERRUPT_NAMES:
            self.fail(phase, "cell %d %r interrupted after %.2fs: %s; want an interrupt error (%s)"
                      % (number, first_line(src), after, r.describe(), " or ".join(sorted(INTERRUPT_NAMES))))
        else:
            log("  interrupted cell %d %r after %.2fs: %s" % (number, first_line(src), after, r.describe()))
        return s.execute(src)

    def interrupt(self, s):
        """The interrupt on its own (when the "again" phase is not run):
        interrupts the first long cell mid-run, then runs it again."""
        t = time.monotonic()
        k = self.first_long()
        if k is not None:
            self.check("interrupt (run again)", k, self.interrupt_cell(s, k))
        self.times["interrupt"] = time.monotonic() - t

    def restart_out_of_order(self, s):
        """Restarts, runs a later cell first (it must fail naming an
        identifier an earlier cell defines), then runs all cells."""
        phase = "restart, later cell first"
        t = time.monotonic()
        s.restart()
        pick = later_cell(self.cells)
        if pick is None:
            log("  %s: no cell uses an earlier cell's identifier; only run all after the restart" % self.name)
            self.run_all(s, "restart, run all")
            return
        k, earlier = pick
        number, src = self.cells[k]
        r = s.execute(src)
        errs = r.errors()
        text = " ".join([e.get("evalue", "") for e in errs] + [l for e in errs for l in e.get("traceback", [])])
        missing = set(re.findall(r"undefined: ([A-Za-z_]\w*)", text))
        if r.status != "error" or not errs:
            self.fail(phase, "cell %d %r run first: reply %r, %d error outputs; want an error" % (number, first_line(src), r.status, len(errs)))
        elif not missing & earlier:
            self.fail(phase, "cell %d %r run first: %s; want \"undefined: x\" naming an identifier an earlier cell defines" % (number, first_line(src), r.describe()))
        else:
            log("  cell %d run first: %s" % (number, r.describe()))
        self.times[phase] = time.monotonic() - t
        self.run_all(s, "then run all")

    def replay(self, phases):
        marker = uuid.uuid4().hex
        log("== %s (%d code cells)" % (self.name, len(self.cells)))
        s = Session(self.kernel, os.path.dirname(os.path.abspath(self.path)), marker)
        try:
            ok = self.run_all(s, "run all")
            if ok and "again" in phases:
                self.run_all(s, "run all again" + (", interrupting" if "interrupt" in phases else ""), interrupt="interrupt" in phases)
            elif ok and "interrupt" in phases:
                self.interrupt(s)
            if "restart" in phases:
                self.restart_out_of_order(s)
        except Failure as e:
            self.fail("session", str(e))
        finally:
            t = time.monotonic()
            s.shutdown()
            self.times["shutdown"] = time.monotonic() - t
        left = marked_processes(marker)
        deadline = time.monotonic() + 10
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = marked_processes(marker)
        if left:
            self.fail("shutdown", "processes left after the kernel shut down: %s" % "; ".join("%d %s" % p for p in left))
            for pid, _ in left:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
        total = sum(self.times.values())
        log("%s %s in %.1fs (%s)%s" % ("ok" if not self.failures else "FAILED", self.name, total,
                                       ", ".join("%s %.1fs" % kv for kv in self.times.items()),
                                       "; %d shape check miss(es)" % len(self.shape_misses) if self.shape_misses else ""))
        return not self.failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", default="conclab")
    ap.add_argument("--quick", action="store_true", help="set CONCLAB_QUICK=1 for the kernels (the notebooks' quick mode)")
    ap.add_argument("--only", default="again,interrupt,restart", help="phases after the first run (comma-separated)")
    ap.add_argument("notebooks", nargs="+")
    args = ap.parse_args()
    if args.quick:
        os.environ["CONCLAB_QUICK"] = "1"
    phases = set(args.only.split(","))
    start = time.monotonic()
    results = []
    for p in args.notebooks:
        r = Replay(p, args.kernel)
        results.append((r, r.replay(phases)))
    log("---- %d notebook(s) in %.1fs" % (len(results), time.monotonic() - start))
    bad = [r for r, ok in results if not ok]
    for r, ok in results:
        log("%-28s %6.1fs  %s" % (r.name, sum(r.times.values()), "ok" if ok else "FAILED"))
    for r in bad:
        for f in r.failures:
            log("FAIL %s: %s" % (r.name, f))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
