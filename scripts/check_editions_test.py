"""Tests of check-editions.py on notebooks made for each case (run by
scripts/test.d/50-notebook.sh: .venv/bin/python scripts/check_editions_test.py)."""

import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-editions.py")


def nb(md_text, code, quick=None, tags=None):
    meta = {"kernelspec": {"name": "conclab"}}
    if quick is not None:
        meta["conclab"] = {"quick": quick}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": meta, "cells": [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": md_text},
        {"cell_type": "code", "id": "b", "metadata": {"tags": tags or ["parameters"]}, "outputs": [],
         "execution_count": None, "source": "n := 10 // requests"},
        {"cell_type": "code", "id": "c", "metadata": {}, "outputs": [], "execution_count": None, "source": code},
    ]}


class CheckEditions(unittest.TestCase):
    def run_check(self, en, ko):
        d = tempfile.mkdtemp()
        os.mkdir(os.path.join(d, "ko"))
        for name, v in en.items():
            with open(os.path.join(d, name), "w") as f:
                json.dump(v, f)
        for name, v in ko.items():
            with open(os.path.join(d, "ko", name), "w") as f:
                json.dump(v, f)
        r = subprocess.run([sys.executable, SCRIPT, "--dir", d], capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr

    def test_cases(self):
        base = nb("# Hello", "x := n * 2", {"n": "2"})
        ko = nb("# 안녕", "x := n * 2", {"n": "2"})
        cases = [
            ("same code, markdown differs", {"a.ipynb": base}, {"a.ipynb": ko}, 0, "1 lesson(s)"),
            ("no Korean edition", {"a.ipynb": base}, {}, 1, "a.ipynb: no Korean edition"),
            ("no English edition", {"a.ipynb": base}, {"a.ipynb": ko, "b.ipynb": ko}, 1, "b.ipynb: no English edition"),
            ("code differs", {"a.ipynb": base}, {"a.ipynb": nb("# 안녕", "x := n * 3", {"n": "2"})}, 1,
             "code cell 2 (cell 3) differs"),
            ("quick differs", {"a.ipynb": base}, {"a.ipynb": nb("# 안녕", "x := n * 2", {"n": "3"})}, 1,
             "metadata conclab.quick"),
            ("quick missing", {"a.ipynb": base}, {"a.ipynb": nb("# 안녕", "x := n * 2")}, 1, "metadata conclab.quick"),
            ("tags differ", {"a.ipynb": base}, {"a.ipynb": nb("# 안녕", "x := n * 2", {"n": "2"}, tags=["x"])}, 1,
             "is tagged"),
        ]
        extra = copy.deepcopy(ko)
        extra["cells"].append({"cell_type": "code", "id": "d", "metadata": {}, "outputs": [], "execution_count": None, "source": "x"})
        cases.append(("a code cell more", {"a.ipynb": base}, {"a.ipynb": extra}, 1, "3 code cells"))
        moved = copy.deepcopy(ko)
        moved["cells"] = [moved["cells"][1], moved["cells"][0], moved["cells"][2]]
        cases.append(("cells reordered", {"a.ipynb": base}, {"a.ipynb": moved}, 1, "cells differ"))
        for name, en, k, code, want in cases:
            with self.subTest(name):
                got, out = self.run_check(en, k)
                self.assertEqual(got, code, out)
                self.assertIn(want, out)


if __name__ == "__main__":
    unittest.main()
