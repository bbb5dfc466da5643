"""The go run corpus (kernel/eval/testdata/gorun: whole programs and cell
sequences) through the real kernel: each entry runs in a fresh conclab
kernel through jupyter_client, and what it shows — its stdout stream, each
cell's displayed value (text/plain, one line each, as a program's
fmt.Println of it), its stderr stream — must match, line for line, what
`go run` of the same program prints on the toolchain running the test
(nondeterministic values masked by the entry's "// mask:" lines).

go run's outputs come from `go test ./kernel/eval -run TestGoRunCorpus`
with GORUN_MANIFEST set, which builds and runs the programs. GORUN_ONLY=NAME
runs the entries whose name contains NAME.

Run with ../../.venv/bin/python -m unittest -v test_gorun_corpus (conclab
kernelspec on JUPYTER_PATH).
"""
import json
import os
import re
import subprocess
import tempfile
import unittest

from jupyter_client.manager import start_new_kernel

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def manifest():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "gorun.json")
        env = dict(os.environ, GORUN_MANIFEST=path)
        r = subprocess.run(["go", "test", "-count=1", "-run", "^TestGoRunCorpus$", "./kernel/eval"],
                           cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or not os.path.exists(path):
            raise AssertionError("building the corpus with go run failed:\n" + r.stdout)
        with open(path) as f:
            return json.load(f)


def masked(s, masks):
    for m in masks or []:
        s = re.sub(m, "<masked>", s)
    if s.endswith("\n"):
        s = s[:-1]
    return s.split("\n")


class GoRunCorpus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.entries = manifest()
        only = os.environ.get("GORUN_ONLY", "")
        cls.entries = [e for e in cls.entries if only in e["name"]]

    def run_entry(self, e):
        km, kc = start_new_kernel(kernel_name="conclab")
        out = {"stdout": "", "stderr": ""}
        failures = []
        try:
            for i, code in enumerate(e["cells"]):
                results = []

                def hook(m):
                    t, c = m["msg_type"], m["content"]
                    if t == "stream":
                        out[c["name"]] += c["text"]
                    elif t == "execute_result":
                        results.append(c["data"].get("text/plain", ""))
                    elif t == "error":
                        failures.append("cell %d: %s: %s" % (i + 1, c["ename"], c["evalue"]))

                kc.execute_interactive(code, timeout=120, output_hook=hook)
                for r in results:
                    out["stdout"] += r + "\n"
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        return out, failures

    def test_corpus(self):
        self.assertGreaterEqual(len(self.entries), 1 if os.environ.get("GORUN_ONLY") else 60)
        bad = []
        for e in self.entries:
            out, failures = self.run_entry(e)
            diffs = list(failures)
            for stream in ("stdout", "stderr"):
                got, want = masked(out[stream], e["masks"]), masked(e[stream], e["masks"])
                if got != want:
                    lines = ["%s %3d go run: %r\n    kernel: %r" % ("!!" if a != b else "  ", n + 1, a, b)
                             for n, (a, b) in enumerate(zip(want + [""] * len(got), got + [""] * len(want)))
                             if n < max(len(got), len(want))]
                    diffs.append("%s differs from go run's:\n%s" % (stream, "\n".join(lines)))
            if diffs:
                bad.append("== %s\n%s" % (e["name"], "\n".join(diffs)))
        self.assertEqual(bad, [], "%d of %d corpus entries differ through the kernel:\n%s" % (len(bad), len(self.entries), "\n".join(bad)))
        print("ok: %d corpus entries through the kernel match go run" % len(self.entries))


if __name__ == "__main__":
    unittest.main()
