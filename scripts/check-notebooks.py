"""Checks that notebooks are committed as their source should be: valid
nbformat 4.5 (validated by nbformat, from the pinned .venv), for the
conclab kernel, no outputs and no execution counts, every code cell
gofmt-clean (internal/cellfmt: gofmt's rules for a cell's import block,
statements and declarations), and the file laid out as Jupyter writes it
(nbformat.writes: indent 1, sorted keys, sources as lists of lines, a final
newline), so that an edit saved from Jupyter changes only what was edited.

--fix rewrites each notebook in place with outputs and execution counts
cleared, the code cells formatted and Jupyter's layout; what it cannot
repair (a cell that does not parse, an invalid notebook) is reported.

Usage: check-notebooks.py --cellfmt BIN [--fix] NOTEBOOK...
(BIN: a build of ./internal/cellfmt/cmd/cellfmt; scripts/check-notebooks.sh
builds it.) Exit status 0 when every notebook passes, 1 otherwise, 2 on
bad usage. Every problem is printed as "NOTEBOOK: cell N (id ID): what".
"""

import argparse
import copy
import difflib
import json
import subprocess
import sys
import warnings

import nbformat

KERNEL = "conclab"


def cell_name(i, cell):
    cid = cell.get("id")
    return "cell %d%s" % (i + 1, " (id %s)" % cid if cid else "")


def source(cell):
    s = cell.get("source", "")
    return s if isinstance(s, str) else "".join(s)


def format_cells(cellfmt, sources):
    """The cellfmt results ({"src": ..., "error": ...}) for sources, in order."""
    if not sources:
        return []
    r = subprocess.run([cellfmt], input=json.dumps(sources), capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("check-notebooks: %s failed (exit %d): %s" % (cellfmt, r.returncode, r.stderr.strip()))
    out = json.loads(r.stdout)
    if len(out) != len(sources):
        raise SystemExit("check-notebooks: %s returned %d results for %d cells" % (cellfmt, len(out), len(sources)))
    return out


def short_diff(old, new, limit=12):
    d = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "committed", "gofmt", lineterm="", n=1))
    more = len(d) - limit
    return d[:limit] + (["... (%d more diff lines)" % more] if more > 0 else [])


def read(path):
    """(text, notebook or None, problems): the notebook parsed and validated."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        return None, None, ["cannot read: %s" % e.strerror]
    try:
        json.loads(text)
    except ValueError as e:
        return text, None, ["not valid JSON: %s" % e]
    with warnings.catch_warnings():
        # nbformat warns (and repairs) instead of failing on some problems,
        # such as missing cell ids: those are failures here.
        warnings.simplefilter("error")
        try:
            nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
            nbformat.validate(nb)
        except Exception as e:  # nbformat raises ValidationError, warnings, and others
            msg = str(e).strip().split("\n")
            return text, None, ["not a valid notebook (nbformat %s): %s" % (nbformat.__version__, " ".join(msg[:3]))]
    problems = []
    if (nb.nbformat, nb.nbformat_minor) != (4, 5):
        problems.append("nbformat %d.%d; want 4.5" % (nb.nbformat, nb.nbformat_minor))
    ks = nb.metadata.get("kernelspec", {}).get("name")
    if ks != KERNEL:
        problems.append("kernelspec %r; want %r" % (ks, KERNEL))
    return text, nb, problems


def check(path, cellfmt, fix):
    """Checks (and with fix, repairs) one notebook; returns its problems."""
    text, nb, problems = read(path)
    if nb is None:
        return problems
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    results = format_cells(cellfmt, [source(c) for _, c in code])
    fixed = copy.deepcopy(nb)
    for (i, c), r in zip(code, results):
        name = cell_name(i, c)
        if c.get("outputs"):
            problems.append("%s: has %d output(s); commit notebooks without outputs" % (name, len(c.outputs)))
        if c.get("execution_count") is not None:
            problems.append("%s: has execution count %s; commit notebooks without them" % (name, c.execution_count))
        fc = fixed.cells[i]
        fc.outputs, fc.execution_count = [], None
        if r.get("error"):
            problems.append("%s: does not parse as Go: %s" % (name, r["error"]))
        elif r["src"] != source(c):
            problems.append("%s: not gofmt-clean:\n      %s" % (name, "\n      ".join(short_diff(source(c), r["src"]))))
            fc.source = r["src"]
    want = nbformat.writes(fixed) + "\n"
    if not problems and text != want:
        problems.append("not laid out as Jupyter writes notebooks (nbformat.writes: indent 1, sources as lists of lines)")
    if fix and text != want:
        with open(path, "w", encoding="utf-8") as f:
            f.write(want)
        print("check-notebooks: fixed %s" % path)
        # What is left after the fix: what it cannot repair.
        _, _, problems = read(path)
        problems += ["%s: does not parse as Go: %s" % (cell_name(i, c), r["error"]) for (i, c), r in zip(code, results) if r.get("error")]
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cellfmt", required=True, help="the cellfmt binary (./internal/cellfmt/cmd/cellfmt)")
    ap.add_argument("--fix", action="store_true", help="rewrite the notebooks in place: no outputs, cells formatted, Jupyter's layout")
    ap.add_argument("notebooks", nargs="+")
    args = ap.parse_args()
    bad = 0
    for path in args.notebooks:
        problems = check(path, args.cellfmt, args.fix)
        for p in problems:
            print("%s: %s" % (path, p), file=sys.stderr)
        bad += bool(problems)
    if bad:
        hint = "" if args.fix else "; scripts/check-notebooks.sh --fix repairs outputs, formatting and layout"
        print("check-notebooks: %d of %d notebook(s) failed%s" % (bad, len(args.notebooks), hint), file=sys.stderr)
        return 1
    print("check-notebooks: %d notebook(s) ok: nbformat 4.5, no outputs, code cells gofmt-clean" % len(args.notebooks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
