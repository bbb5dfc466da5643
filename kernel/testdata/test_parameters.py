"""Notebook parameters, papermill's way and conclab's: papermill (with the Go
translator of python/conclab-papermill, through the installed conclab
kernel) and `conclab run -p` each run notebook/testdata/params-burst.ipynb
with parameters changed; the burst's count column shows the new n, the
values land typed, and both write the same injected cell.

Run with ../../.venv/bin/python -m unittest -v test_parameters, with the
conclab kernelspec on JUPYTER_PATH and CONCLAB_BIN naming the conclab binary
(scripts/test.d/10-kernel.sh sets both).
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
NOTEBOOK = os.path.join(HERE, "..", "..", "notebook", "testdata", "params-burst.ipynb")
CONCLAB = os.environ.get("CONCLAB_BIN", "conclab")
# papermill reads "True" as a bool and writes it "true"; conclab run passes
# the text on and the kernel's ParseBool takes either: both land true. The
# runs compared byte for byte give the same text to both.
PARAMS = [("n", "25"), ("wait", "5ms"), ("label", 'load "B" ✓'), ("verbose", "true")]


def flags(params):
    out = []
    for name, value in params:
        out += ["-p", name, value]
    return out


def cells(path):
    with open(path) as f:
        return json.load(f)["cells"]


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def text_of(cell):
    parts = []
    for o in cell.get("outputs", []):
        if o["output_type"] == "stream":
            parts.append("".join(o["text"]))
        elif o["output_type"] in ("execute_result", "display_data"):
            parts.append("".join(o["data"].get("text/plain", "")))
        elif o["output_type"] == "error":
            parts.append(o["ename"] + ": " + o["evalue"])
    return "".join(parts)


def count_column(cell):
    """The count of the goroutines row of the summary table."""
    for line in text_of(cell).splitlines():
        fields = line.split()
        if fields[:1] == ["goroutines"] and len(fields) == 3:
            return int(fields[1])
    raise AssertionError("no goroutines row in %r" % text_of(cell))


class Parameters(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def papermill(self, out, params):
        return subprocess.run([sys.executable, "-m", "papermill", "--log-output", NOTEBOOK, out] + flags(params),
                              capture_output=True, text=True, timeout=300)

    def conclab_run(self, outdir, params):
        return subprocess.run([CONCLAB, "run", "--out", outdir, NOTEBOOK] + flags(params),
                              capture_output=True, text=True, timeout=300)

    def check_run(self, cs, want_n, want_line, injected=True):
        cells_injected = [c for c in cs if "injected-parameters" in tags(c)]
        params_at = [i for i, c in enumerate(cs) if "parameters" in tags(c)][0]
        self.assertEqual(len(cells_injected), 1 if injected else 0)
        if injected:
            self.assertIs(cs[params_at + 1], cells_injected[0], "the injected cell follows the parameters cell")
        self.assertEqual(count_column(cs[-1]), want_n)
        self.assertIn(want_line, text_of(cs[-1]))

    def test_defaults_then_changed(self):
        """Without parameters the burst is 10; with -p n 25 it is 25, under
        papermill and under conclab run, and the other values land typed
        (a time.Duration, a string with quotes and non-ASCII, a bool); a
        bool given as papermill's True lands too."""
        base = os.path.join(self.tmp.name, "base")
        r = self.conclab_run(base, [])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.check_run(cells(os.path.join(base, "params-burst.ipynb")), 10,
                       "label=burst n=10 wait=20ms verbose=false", injected=False)

        pm_out = os.path.join(self.tmp.name, "pm.ipynb")
        r = self.papermill(pm_out, PARAMS)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        pm = cells(pm_out)
        want = 'label=load "B" ✓ n=25 wait=5ms verbose=true'
        self.check_run(pm, 25, want)

        cr_dir = os.path.join(self.tmp.name, "cr")
        r = self.conclab_run(cr_dir, PARAMS)
        self.assertEqual(r.returncode, 0, r.stderr)
        cr = cells(os.path.join(cr_dir, "params-burst.ipynb"))
        self.check_run(cr, 25, want)

        src = lambda cs: "".join([c for c in cs if "injected-parameters" in tags(c)][0]["source"])
        self.assertEqual(src(pm), src(cr), "papermill and conclab run wrote different injected cells")

        for name, run in (("papermill", self.papermill), ("conclab run", self.conclab_run)):
            out = os.path.join(self.tmp.name, "true-" + name.replace(" ", "-"))
            r = run(out + ".ipynb" if run == self.papermill else out, [("verbose", "True")])
            self.assertEqual(r.returncode, 0, r.stderr[-3000:])
            got = cells(out + ".ipynb" if run == self.papermill else os.path.join(out, "params-burst.ipynb"))
            self.check_run(got, 10, "label=burst n=10 wait=20ms verbose=true")

    def test_bad_value_names_parameter_and_type(self):
        out = os.path.join(self.tmp.name, "bad.ipynb")
        r = self.papermill(out, [("n", "many"), ("wait", "2")])
        self.assertNotEqual(r.returncode, 0)
        injected = [c for c in cells(out) if "injected-parameters" in tags(c)][0]
        msg = text_of(injected)
        self.assertIn('parameter n: want int, got "many"', msg)
        self.assertIn('parameter wait: want time.Duration (a number with a unit: 500ms, 2s, 1m30s), got "2"', msg)

        r = self.conclab_run(os.path.join(self.tmp.name, "bad"), [("n", "many")])
        self.assertEqual(r.returncode, 1)
        self.assertIn('parameter n: want int, got "many"', r.stderr)

    def test_unknown_name(self):
        r = self.conclab_run(os.path.join(self.tmp.name, "unknown"), [("nosuch", "1")])
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("unknown parameter nosuch: the parameters cell (cell 2) declares label, n, verbose, wait", r.stderr)
        self.assertNotIn("cell 3", r.stderr, "nothing ran")

        out = os.path.join(self.tmp.name, "unknown.ipynb")
        r = self.papermill(out, [("nosuch", "1")])
        self.assertNotEqual(r.returncode, 0)
        injected = [c for c in cells(out) if "injected-parameters" in tags(c)][0]
        self.assertIn("undefined: nosuch", text_of(injected))


if __name__ == "__main__":
    unittest.main()
