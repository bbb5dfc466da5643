"""Checks that every lesson has its Korean edition and that the two are the
same lesson: notebooks/ko/X.ipynb for every notebooks/X.ipynb (and no Korean
notebook without its English one), the same cells in the same order (cell
kinds), every code cell byte-identical (source and tags: the parameters cell
is the same cell), and the same quick parameters (metadata conclab.quick).
Only markdown may differ.

Usage: check-editions.py [--dir notebooks]
Exit status 0 when the editions agree, 1 otherwise (each problem printed as
"notebooks/ko/X.ipynb: what differs"), 2 on bad usage. Reads the files as
JSON; scripts/check-notebooks.py checks their format.
"""

import argparse
import json
import os
import sys


def source(cell):
    s = cell.get("source", "")
    return s if isinstance(s, str) else "".join(s)


def quick(nb):
    c = nb.get("metadata", {}).get("conclab")
    return c.get("quick") if isinstance(c, dict) else None


def first_difference(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else "(nothing)"
        y = bl[i] if i < len(bl) else "(nothing)"
        if x != y:
            return "line %d: English %r, Korean %r" % (i + 1, x, y)
    return "line endings or a final newline"


def compare(en_path, ko_path):
    problems = []
    with open(en_path, encoding="utf-8") as f:
        en = json.load(f)
    with open(ko_path, encoding="utf-8") as f:
        ko = json.load(f)
    ek = [c.get("cell_type") for c in en.get("cells", [])]
    kk = [c.get("cell_type") for c in ko.get("cells", [])]
    if ek != kk:
        problems.append("cells differ from %s's: English %d cells %s, Korean %d cells %s" % (
            en_path, len(ek), "".join(k[0] for k in ek), len(kk), "".join(k[0] for k in kk)))
    ec = [(i, c) for i, c in enumerate(en.get("cells", [])) if c.get("cell_type") == "code"]
    kc = [(i, c) for i, c in enumerate(ko.get("cells", [])) if c.get("cell_type") == "code"]
    if len(ec) != len(kc):
        problems.append("%d code cells; %s has %d" % (len(kc), en_path, len(ec)))
    for n, ((ei, e), (ki, k)) in enumerate(zip(ec, kc)):
        if source(e) != source(k):
            problems.append("code cell %d (cell %d) differs from %s's code cell %d (cell %d): %s" % (
                n + 1, ki + 1, en_path, n + 1, ei + 1, first_difference(source(e), source(k))))
        et, kt = e.get("metadata", {}).get("tags", []), k.get("metadata", {}).get("tags", [])
        if et != kt:
            problems.append("code cell %d (cell %d) is tagged %s; in %s %s" % (n + 1, ki + 1, kt, en_path, et))
    if quick(en) != quick(ko):
        problems.append("metadata conclab.quick is %s; %s has %s" % (
            json.dumps(quick(ko), sort_keys=True), en_path, json.dumps(quick(en), sort_keys=True)))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="notebooks")
    args = ap.parse_args()
    ko_dir = os.path.join(args.dir, "ko")
    en = sorted(f for f in os.listdir(args.dir) if f.endswith(".ipynb") and not f.startswith("."))
    ko = sorted(f for f in os.listdir(ko_dir) if f.endswith(".ipynb") and not f.startswith(".")) if os.path.isdir(ko_dir) else []
    problems = []
    for name in en:
        if name not in ko:
            problems.append("%s: no Korean edition (want %s)" % (os.path.join(args.dir, name), os.path.join(ko_dir, name)))
    for name in ko:
        ko_path = os.path.join(ko_dir, name)
        if name not in en:
            problems.append("%s: no English edition (want %s)" % (ko_path, os.path.join(args.dir, name)))
            continue
        try:
            problems += ["%s: %s" % (ko_path, p) for p in compare(os.path.join(args.dir, name), ko_path)]
        except (OSError, ValueError) as e:
            problems.append("%s: cannot compare: %s" % (ko_path, e))
    for p in problems:
        print(p)
    if problems:
        print("check-editions: %d problem(s); English and Korean editions must have the same cells, "
              "byte-identical code cells and the same metadata conclab.quick" % len(problems))
        return 1
    print("check-editions: %d lesson(s), each with its Korean edition" % len(en))
    return 0


if __name__ == "__main__":
    sys.exit(main())
