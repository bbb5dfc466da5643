"""Writes a copy of each notebook with its quick parameters injected, for
runners that take no -p of their own (nbconvert --execute, the session
replay, JupyterLab): metadata {"conclab": {"quick": {"vus": "4"}}} becomes an
"injected-parameters" cell after the "parameters" cell, written by papermill
with conclab's Go translator (python/conclab-papermill) — the bytes
`conclab run --quick` injects. A notebook without quick parameters is copied
unchanged. Values go as text (papermill's raw parameters), as on -p.

Usage: quick-params.py OUT_DIR NOTEBOOK...
Writes OUT_DIR/NAME.ipynb per notebook (two notebooks with one name are an
error) and prints one line per notebook: its name and the parameters set.
Exit status 1 when a notebook's quick metadata is not an object of text
values or it has no parameters cell.
"""

import json
import os
import shutil
import sys


def quick_of(nb, path):
    c = nb.get("metadata", {}).get("conclab")
    if c is None:
        return {}
    if not isinstance(c, dict):
        raise SystemExit("%s: metadata conclab is not an object" % path)
    q = c.get("quick") or {}
    if not isinstance(q, dict) or not all(isinstance(v, str) for v in q.values()):
        raise SystemExit("%s: metadata conclab.quick must map parameter names to text values (as on -p), got %r" % (path, q))
    return q


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, paths = argv[1], argv[2:]
    os.makedirs(out, exist_ok=True)
    seen = {}
    todo = []
    for p in paths:
        name = os.path.basename(p)
        if name in seen:
            raise SystemExit("quick-params: %s and %s would both be written to %s" % (seen[name], p, os.path.join(out, name)))
        seen[name] = p
        with open(p, encoding="utf-8") as f:
            nb = json.load(f)
        q = quick_of(nb, p)
        if q and not any("parameters" in c.get("metadata", {}).get("tags", []) for c in nb.get("cells", [])):
            raise SystemExit("%s: metadata conclab.quick is set but no cell is tagged \"parameters\"" % p)
        todo.append((p, os.path.join(out, name), q))
    if any(q for _, _, q in todo):
        import papermill  # the pinned .venv's, with conclab_papermill's Go translator
        import conclab_papermill  # noqa: F401  (registers the "go" translator)
    for src, dst, q in todo:
        if q:
            papermill.execute_notebook(src, dst, parameters=dict(sorted(q.items())), prepare_only=True,
                                       language="go", progress_bar=False, log_output=False)
        else:
            shutil.copyfile(src, dst)
        print("%s: %s" % (os.path.basename(src), " ".join("%s=%s" % kv for kv in sorted(q.items())) or "no quick parameters"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
