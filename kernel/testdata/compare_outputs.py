"""The kernel and `conclab run` give the same outputs for the same notebook.

Usage: compare_outputs.py CONCLAB NOTEBOOK

Runs NOTEBOOK twice: through the conclab kernel (the kernelspec Jupyter finds
on JUPYTER_PATH), cell by cell by nbclient as Jupyter's tools run notebooks,
and with `CONCLAB run --allow-errors`. Both share one cell -> output model
(kernel/cellout); this checks they agree, output by output: streams (name
and text), display_data and execute_result (every MIME type's data and the
metadata), errors (ename, evalue, traceback), display updates applied in
place.

What may differ is only what the two record differently by design, and is
normalised: nbclient stores a stream as the messages came (one output per
message run, carriage returns kept) while `conclab run` merges a cell's
consecutive writes and applies carriage returns as a front end shows them;
execution counts and display ids (transient) are not compared.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import nbformat
from nbclient import NotebookClient


def collapse_cr(s):
    """Carriage returns as a terminal shows them (cellout.CollapseCR)."""
    s = s.replace("\r\n", "\n")
    out = []
    for line in s.split("\n"):
        body = line.rstrip("\r")
        if "\r" in body:
            line = body[body.rindex("\r") + 1:] + line[len(body):]
        out.append(line)
    return "\n".join(out)


def text(v):
    return "".join(v) if isinstance(v, list) else v


def normal(outputs):
    """A comparable form of a cell's outputs."""
    res = []
    for o in outputs:
        t = o["output_type"]
        if t == "stream":
            if res and res[-1][0] == "stream" and res[-1][1] == o["name"]:
                res[-1] = ("stream", o["name"], res[-1][2] + text(o["text"]))
            else:
                res.append(("stream", o["name"], text(o["text"])))
        elif t in ("display_data", "execute_result"):
            data = {k: (text(v) if not k.endswith("json") else v) for k, v in o.get("data", {}).items()}
            res.append((t, json.dumps(data, sort_keys=True), json.dumps(o.get("metadata", {}), sort_keys=True)))
        elif t == "error":
            res.append(("error", o["ename"], o["evalue"], json.dumps(o["traceback"])))
        else:
            res.append((t, json.dumps(o, sort_keys=True)))
    return [(r[0], r[1], collapse_cr(r[2])) if r[0] == "stream" else r for r in res]


def main():
    conclab, path = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        code = subprocess.run([conclab, "run", "--allow-errors", "--out", tmp, path],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if code.returncode != 0:
            print("conclab run failed (%d):\n%s" % (code.returncode, code.stdout))
            return 1
        ran = nbformat.read(os.path.join(tmp, os.path.basename(path)), as_version=4)

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name="conclab", timeout=120, allow_errors=True,
                   resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}}).execute()

    failures = 0
    for i, (k, r) in enumerate(zip(nb.cells, ran.cells)):
        if k.cell_type != "code":
            continue
        a, b = normal(k.outputs), normal(r.outputs)
        if a != b:
            failures += 1
            print("cell %d differs:\n  source: %r\n  kernel:      %r\n  conclab run: %r" % (i, k.source, a, b))
        elif not a and not re.match(r"^\s*(h, _ :=|var|type)", k.source):
            print("cell %d: no outputs either way (source %r)" % (i, k.source))
    if failures:
        print("FAIL: %d of %d cells differ between the kernel and conclab run" % (failures, len(nb.cells)))
        return 1
    print("ok: the kernel and conclab run give the same outputs for the %d cells of %s" % (len(nb.cells), path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
