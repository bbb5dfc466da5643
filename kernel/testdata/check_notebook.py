"""Checks the outputs of kernel_outputs.ipynb after
`jupyter nbconvert --execute --allow-errors --to notebook` through the conclab kernel."""
import base64
import json
import sys

nb = json.load(open(sys.argv[1]))
cells = nb["cells"]
failures = []


def outputs(i):
    return cells[i]["outputs"]


def text(o):
    t = o.get("text", "")
    return "".join(t) if isinstance(t, list) else t


def data(o, mime):
    d = o.get("data", {}).get(mime)
    return "".join(d) if isinstance(d, list) else d


def expect(cond, msg):
    if not cond:
        failures.append(msg)


o = outputs(0)
expect(any(x["output_type"] == "stream" and x["name"] == "stdout" and "text output" in text(x) for x in o), "cell 0: stdout text: %r" % o)
o = outputs(1)
expect(any(x["output_type"] == "execute_result" and data(x, "text/html") == "<b>html output</b>" for x in o), "cell 1: HTML: %r" % o)
o = outputs(2)
pngs = [data(x, "image/png") for x in o if x["output_type"] == "execute_result" and data(x, "image/png")]
expect(pngs and base64.b64decode(pngs[0])[:8] == b"\x89PNG\r\n\x1a\n", "cell 2: PNG: %r" % o)
o = outputs(3)
expect(any(x["output_type"] == "display_data" and data(x, "text/markdown") == "**gophernotes style**" for x in o), "cell 3: Display markdown: %r" % o)
o = outputs(4)
expect(any(x["output_type"] == "error" and x["ename"] == "panic" and "expected failure" in x["evalue"] for x in o), "cell 4: error: %r" % o)
o = outputs(5)
expect(any(x["output_type"] == "execute_result" and data(x, "text/html") == "<span>rendered by method</span>" for x in o), "cell 5: HTML method: %r" % o)
o = outputs(6)
expect(any(x["output_type"] == "stream" and "from the shell" in text(x) for x in o), "cell 6: shell: %r" % o)
o = outputs(7)
expect(any(x["output_type"] == "execute_result" and data(x, "text/plain") == "42" for x in o), "cell 7: after the error: %r" % o)

if failures:
    print("notebook check FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("notebook check ok: text, HTML, PNG, display_data, error, method-rendered HTML, shell, state after error")
