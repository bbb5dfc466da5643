#!/usr/bin/env bash
# Notebook runner integration: `conclab run` on the fixture notebooks, the
# written .ipynb files validated (and compared byte for byte with what
# Jupyter's own writer produces) by nbformat (the pinned .venv), HTML reports
# checked, bad input rejected with a non-zero exit and the input intact, and
# fatal errors and timeouts failing only their cell (the real binary's child
# process per notebook).
# Then the lab's notebooks (notebooks/*.ipynb), each executed once in quick
# mode by `conclab run --quick` (the notebook's metadata conclab.quick as -p;
# written notebooks valid nbformat 4.5 and under 2 MB with their outputs,
# HTML reports opened in the charts' browser check), their Korean editions
# (notebooks/ko) the same way at the same time, and through Jupyter: every
# executed notebook exported by `jupyter nbconvert --to html` and opened in the
# browser check; NOTEBOOK_NBCONVERT_EXECUTE (default: 00-quickstart
# byo-server) are also executed by `nbconvert --execute` through the conclab
# kernel (a fresh build of this tree, kernelspec in a temp prefix; the quick
# parameters injected by scripts/quick-params.py), where the kernel must show
# as many charts as `conclab run` did. Expectations are derived from the
# notebooks, none written per lesson. (Every notebook is run through the kernel
# by 55-replay, and in JupyterLab by 45-jupyterlab on two of them.)
# NOTEBOOK_SKIP_SEEDS=1 skips notebooks/, NOTEBOOK_SKIP_NBCONVERT=1 only the
# nbconvert pass, NOTEBOOK_SKIP_BROWSER=1 the browser checks.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=$(pwd)/.venv/bin/python # the pinned environment (scripts/setup.d/20-python.sh)
CONCLAB=${CONCLAB:-conclab}
command -v "$CONCLAB" >/dev/null || CONCLAB=bin/conclab
tmp=$(mktemp -d)
serve_pid=
cleanup() {
  if [ -n "$serve_pid" ]; then kill -INT "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() { echo "50-notebook: $*" >&2; exit 1; }

# browser_check SHOTS_DIR PAGE.html...: the charts' browser check
# (charts/browser/check.mjs) on every page that has a chart container.
browser_check() {
  local shots=$1 h
  shift
  local pages=()
  for h in "$@"; do
    [ -e "$h" ] || continue
    local name
    name=$(basename "$h" .html)
    case "$h" in */ko/*|*-ko-html/*) name=ko-$name ;; esac # a Korean edition has its English one's name
    if grep -q 'data-conclab-chart="1"' "$h"; then pages+=("$name=file://$h"); fi
  done
  [ ${#pages[@]} -eq 0 ] || node charts/browser/check.mjs --shots "$shots" "${pages[@]}"
}

# nbconvert_failure LOG: what went wrong in an nbconvert run logged at
# DEBUG level: the cell that was executing, its stream output (a shape
# check prints its measured values before it panics) and its error; the
# exception and the last lines of the log otherwise (kernel died, timeout).
nbconvert_failure() {
  "$py" - "$1" <<'PY'
import ast, re, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")
tag = "[NbConvertApp] "
starts = [i for i, l in enumerate(lines) if l.startswith(tag + "Executing cell:")]
out, cell_error = [], False
if starts:
    i = starts[-1] + 1
    src = []
    while i < len(lines) and not lines[i].startswith(tag):
        src.append(lines[i])
        i += 1
    out.append("code cell %d: %s%s" % (len(starts), src[0] if src else "", " (%d lines)" % len(src) if len(src) > 1 else ""))
    text = []
    for l in lines[i:]:
        if not l.startswith(tag + "content: {"):
            continue
        try:
            c = ast.literal_eval(l[len(tag + "content: "):])
        except (ValueError, SyntaxError):
            continue
        if "name" in c and "text" in c:
            text += c["text"].splitlines()
        elif "ename" in c:
            cell_error = True
            text += c.get("traceback") or ["%s: %s" % (c["ename"], c.get("evalue", ""))]
    out += text[-60:]
exc = [l for l in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt)\b.*", l)]
if exc and not cell_error:
    out.append(exc[-1])
if not starts or not exc:
    out += [l for l in lines if l and not l.startswith(tag) and not l.startswith((" ", "\t"))][-40:]
print("\n".join(out))
PY
}

# now_ms: wall clock in milliseconds; secs MS: "12.3s".
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t / 1000)); }
secs() { printf '%d.%ds' $(($1 / 1000)) $(($1 % 1000 / 100)); }

cp notebook/testdata/go-outputs.ipynb "$tmp/in.ipynb"

# A failing cell: exit 1 without --allow-errors, the input untouched even with --inplace.
cp "$tmp/in.ipynb" "$tmp/keep.ipynb"
if "$CONCLAB" run --inplace "$tmp/in.ipynb" 2>"$tmp/err.log"; then fail "a failing notebook exited 0"; fi
grep -q 'in.ipynb: cell 8 (id [a-z0-9]*): panic' "$tmp/err.log" || fail "no message naming notebook and cell: $(cat "$tmp/err.log")"
cmp -s "$tmp/in.ipynb" "$tmp/keep.ipynb" || fail "--inplace changed the input of a failed run"

# With errors allowed: executed notebook and HTML report written.
"$CONCLAB" run --allow-errors --quick --timeout 2m --out "$tmp/out" --html "$tmp/html" "$tmp/in.ipynb" 2>"$tmp/run.log" \
  || { cat "$tmp/run.log" >&2; fail "run --allow-errors failed"; }
grep -q '\[7/7\] cell 9' "$tmp/run.log" || fail "no per-cell progress: $(cat "$tmp/run.log")"

"$py" - "$tmp/out/in.ipynb" <<'PY'
import sys, warnings
import nbformat
warnings.simplefilter("error")  # nbformat warns (and repairs) instead of failing on some problems
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5), (nb.nbformat, nb.nbformat_minor)
    assert nb.metadata.language_info.name == "go", nb.metadata.language_info
    kinds = {o.output_type for c in nb.cells if c.cell_type == "code" for o in c.outputs}
    assert kinds == {"stream", "display_data", "execute_result", "error"}, kinds
    assert nbformat.writes(nb) + "\n" == text, "not written the way Jupyter writes notebooks"
    print("50-notebook: valid nbformat 4.5:", path)
PY

page="$tmp/html/in.html"
for want in '<table>' 'class="chroma"' '<b>bold</b>' 'step 2 of 2' 'assignment to entry in nil map' '<svg'; do
  grep -qF "$want" "$page" || fail "HTML report lacks $want"
done

# Bad input: missing file, invalid JSON, another language; exit non-zero, message names the file.
printf '{"cells": [' > "$tmp/broken.ipynb"
if "$CONCLAB" run "$tmp/missing.ipynb" 2>"$tmp/e1"; then fail "missing file exited 0"; fi
grep -q 'missing.ipynb: no such notebook' "$tmp/e1" || fail "missing file: $(cat "$tmp/e1")"
if "$CONCLAB" run --inplace "$tmp/broken.ipynb" 2>"$tmp/e2"; then fail "invalid JSON exited 0"; fi
grep -q 'broken.ipynb: not a valid notebook: invalid JSON' "$tmp/e2" || fail "invalid JSON: $(cat "$tmp/e2")"
[ "$(cat "$tmp/broken.ipynb")" = '{"cells": [' ] || fail "invalid input file changed"
if "$CONCLAB" run notebook/testdata/jupyter-python.ipynb 2>"$tmp/e3"; then fail "python notebook exited 0"; fi
grep -q 'jupyter-python.ipynb: a python notebook' "$tmp/e3" || fail "python notebook: $(cat "$tmp/e3")"

# Fatal errors and timeouts with the real binary (each notebook in a child
# process of its own): a stack overflow and a concurrent map write fail their
# cell with a one-line error in the executed notebook and the report, the
# next notebook still runs; a `$ sleep` cell times out in about --timeout and
# leaves no sleep behind.
mk_nb() { # mk_nb PATH CELL...: a Go notebook with these code cells
  "$py" - "$@" <<'PY'
import json, sys
cells = [{"cell_type": "code", "execution_count": None, "id": "c%d" % i, "metadata": {}, "outputs": [], "source": s}
         for i, s in enumerate(sys.argv[2:])]
json.dump({"cells": cells, "metadata": {"kernelspec": {"name": "conclab", "display_name": "Go (conclab)", "language": "go"}},
           "nbformat": 4, "nbformat_minor": 5}, open(sys.argv[1], "w"))
PY
}
mkdir -p "$tmp/fatal"
mk_nb "$tmp/fatal/a-stack.ipynb" 'fmt.Println("before")' $'debug.SetMaxStack(64 << 20)\nfunc down(n int) int { return down(n+1) + 1 }\ndown(0)'
mk_nb "$tmp/fatal/b-maps.ipynb" $'m := map[int]int{}\nfor i := 0; i < 4; i++ {\n\tgo func() {\n\t\tfor j := 0; ; j++ {\n\t\t\tm[j%64] = j\n\t\t}\n\t}()\n}\ntime.Sleep(10 * time.Second)'
mk_nb "$tmp/fatal/c-sleep.ipynb" "\$ sleep 61 & echo \$! > $tmp/fatal/sleep.pid; wait"
mk_nb "$tmp/fatal/d-good.ipynb" '6 * 7'
start=$(date +%s)
if "$CONCLAB" run --timeout 3s --out "$tmp/fatal/out" --html "$tmp/fatal/html" "$tmp/fatal" 2>"$tmp/fatal.log"; then
  fail "notebooks with fatal errors exited 0"
fi
took=$(( $(date +%s) - start ))
[ "$(wc -c <"$tmp/fatal.log")" -lt 8192 ] || fail "conclab run printed $(wc -c <"$tmp/fatal.log") bytes for 4 notebooks (a goroutine dump?)"
grep -q 'a-stack.ipynb: cell 2 (id c1): FatalError: stack overflow' "$tmp/fatal.log" || fail "stack overflow not reported: $(cat "$tmp/fatal.log")"
grep -q 'b-maps.ipynb: cell 1 (id c0): FatalError: concurrent map writes' "$tmp/fatal.log" || fail "concurrent map writes not reported: $(cat "$tmp/fatal.log")"
grep -q 'c-sleep.ipynb: cell 1 (id c0): timed out after 3s' "$tmp/fatal.log" || fail "timeout not reported: $(cat "$tmp/fatal.log")"
grep -q "^ok $tmp/fatal/d-good.ipynb" "$tmp/fatal.log" || fail "the notebook after the crashes did not run: $(cat "$tmp/fatal.log")"
grep -q 'stack overflow' "$tmp/fatal/html/a-stack.html" || fail "the HTML report does not show the stack overflow"
"$py" - "$tmp/fatal/out/a-stack.ipynb" <<'PY' || fail "the executed notebook does not record the fatal error in its cell"
import json, sys
c = json.load(open(sys.argv[1]))["cells"]
assert c[0]["outputs"][0]["text"] == ["before\n"], c[0]["outputs"]
e = [o for o in c[1]["outputs"] if o["output_type"] == "error"]
assert e and e[0]["ename"] == "FatalError" and e[0]["evalue"].startswith("stack overflow"), c[1]["outputs"]
PY
pid=$(cat "$tmp/fatal/sleep.pid")
if [ -d "/proc/$pid" ] && ! grep -q '^[^)]*) [ZX]' "/proc/$pid/stat" 2>/dev/null; then
  kill -9 "$pid"; fail "the timed-out cell's sleep (pid $pid) was left running"
fi
# Four notebooks, one 3 s timeout.
[ "$took" -lt 40 ] || fail "fatal-error notebooks took ${took}s"
echo "50-notebook: fatal errors and a timeout each failed their cell in ${took}s; the next notebook ran; no process left"

# Charts in conclab's own HTML export, offline, in headless chromium (the
# charts area's browser check): the chart that carried the ECharts library is
# cleared, so the page relies on the exporter adding it once in the head.
if [ "${NOTEBOOK_SKIP_BROWSER:-}" = 1 ]; then
  echo "50-notebook: browser check skipped (NOTEBOOK_SKIP_BROWSER=1)"
else
  "$CONCLAB" run --html "$tmp/charts" --out "$tmp/charts" notebook/testdata/charts.ipynb 2>"$tmp/charts.log" \
    || { cat "$tmp/charts.log" >&2; fail "chart notebook failed"; }
  "$py" -W error -c 'import sys, nbformat; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))' "$tmp/charts/charts.ipynb" \
    || fail "executed chart notebook is not valid nbformat"
  n=$(grep -o 'data-conclab-echarts=' "$tmp/charts/charts.html" | wc -l)
  [ "$n" = 1 ] || fail "chart page carries the ECharts library $n times; want once"
  node charts/browser/check.mjs --shots "$tmp/shots" --min-charts 2 "conclab-run=file://$tmp/charts/charts.html" \
    || fail "charts in the exported page did not draw offline"
fi

# The lab's own notebooks (notebooks/*.ipynb), when present: a quick headless
# run of all of them (`conclab run --quick`: each notebook's metadata
# conclab.quick as -p), every written notebook validated, every report opened
# in the browser check; the Korean editions (notebooks/ko/*.ipynb) the same
# way, at the same time, with Python too (the path without Python is
# 55-replay's). NOTEBOOK_SKIP_SEEDS=1 skips this part.
if [ "${NOTEBOOK_SKIP_SEEDS:-}" != 1 ] && compgen -G "notebooks/*.ipynb" >/dev/null; then
  "$py" scripts/check_editions_test.py >"$tmp/editions-test.log" 2>&1 \
    || { cat "$tmp/editions-test.log" >&2; fail "scripts/check-editions.py's tests failed"; }
  # A lesson that reads CONCLAB_BYO_URL (byo-server) measures "your own
  # server": a `conclab serve` stands in for it, in every pass.
  "$CONCLAB" serve --strategy goroutines --workload sleep=50ms >"$tmp/serve.log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 50); do grep -q 'http://127.0.0.1:' "$tmp/serve.log" && break; sleep 0.1; done
  byo=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/serve.log" | head -1) || fail "conclab serve did not start: $(cat "$tmp/serve.log")"
  export CONCLAB_BYO_URL=$byo
  # The English and the Korean editions at once, both with Python (a lesson
  # that calibrates this machine's CPython costs needs it; the lessons assert
  # nothing, so sharing the cores changes numbers, not outcomes; the calibration
  # file is shared under its lock). The skip path without Python is the
  # replay's (55-replay).
  # Each edition in two streams (its notebooks taken in turn), all four at
  # once: most of a lesson's quick run is waiting (real servers starting,
  # waves of sleeps), so the streams share the cores well.
  start=$(date +%s)
  ko=()
  if compgen -G "notebooks/ko/*.ipynb" >/dev/null; then ko=(notebooks/ko/*.ipynb); fi
  en=(notebooks/*.ipynb)
  pids=() names=()
  # stream NAME OUT PARITY NOTEBOOK...: conclab run --quick of every other
  # notebook (PARITY 0 or 1) into OUT, logged to $tmp/NAME.log.
  stream() {
    local name=$1 out=$2 parity=$3 i=0 nb part=()
    shift 3
    for nb in "$@"; do
      [ $((i % 2)) -eq "$parity" ] && part+=("$nb")
      i=$((i + 1))
    done
    [ ${#part[@]} -gt 0 ] || return 0
    "$CONCLAB" run --quick --out "$tmp/$out" --html "$tmp/$out-html" "${part[@]}" 2>"$tmp/$name.log" &
    pids+=($!) names+=("$name")
  }
  stream seeds-0 seeds 0 "${en[@]}"
  stream seeds-1 seeds 1 "${en[@]}"
  if [ ${#ko[@]} -gt 0 ]; then
    stream seeds-ko-0 seeds-ko 0 "${ko[@]}"
    stream seeds-ko-1 seeds-ko 1 "${ko[@]}"
  fi
  failed=()
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed+=("${names[$i]}"); done
  cat "$tmp"/seeds-[01].log >"$tmp/seeds.log" 2>/dev/null || true
  cat "$tmp"/seeds-ko-[01].log >"$tmp/seeds-ko.log" 2>/dev/null || true
  for name in "${failed[@]}"; do
    cat "$tmp/$name.log" >&2
    case $name in
      seeds-ko-*) fail "conclab run --quick notebooks/ko failed ($name)" ;;
      *) fail "conclab run --quick notebooks failed ($name)" ;;
    esac
  done
  cat "$tmp/seeds.log" >&2
  grep -E '^(ok|FAIL) ' "$tmp/seeds-ko.log" >&2 || true
  echo "50-notebook: quick run of notebooks/ and notebooks/ko (four streams at once) took $(( $(date +%s) - start ))s"
  written=("$tmp"/seeds/*.ipynb)
  [ ${#ko[@]} -eq 0 ] || written+=("$tmp"/seeds-ko/*.ipynb)
  # Expectations derived from the notebooks themselves: valid nbformat 4.5
  # under 2 MB; a notebook whose source reads CONCLAB_BYO_URL shows that URL in
  # its outputs; a Korean edition's run has as many cells as its English
  # one's, and real-CPython rows ("real X") where the English run has them.
  "$py" - "$CONCLAB_BYO_URL" "$tmp/seeds" "$tmp/seeds-ko" "${written[@]}" <<'PY' || fail "a written notebook failed its checks (above)"
import os, re, sys, warnings
import nbformat
warnings.simplefilter("error")
MAX = 2 << 20  # as 45-jupyterlab's limit on a notebook saved with its outputs
byo, en_dir, ko_dir, paths = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
REAL_ROW = re.compile(r"^\s*real \S", re.M)

def texts(nb):
    out = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            t = o.get("text") or o.get("data", {}).get("text/plain") or ""
            out.append(t if isinstance(t, str) else "".join(t))
    return "\n".join(out)

bad = []
for path in paths:
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    if (nb.nbformat, nb.nbformat_minor) != (4, 5):
        bad.append("%s: nbformat %d.%d" % (path, nb.nbformat, nb.nbformat_minor))
    size = os.path.getsize(path)
    if size >= MAX:
        bad.append("%s: %d KiB with its outputs (limit %d KiB)" % (path, size >> 10, MAX >> 10))
    src = "\n".join("".join(c.source) for c in nb.cells if c.cell_type == "code")
    if "CONCLAB_BYO_URL" in src and byo not in texts(nb):
        bad.append("%s reads CONCLAB_BYO_URL but its outputs never show %s" % (path, byo))
    if os.path.dirname(path) == ko_dir:
        en = os.path.join(en_dir, os.path.basename(path))
        if os.path.exists(en):
            ek = nbformat.read(en, as_version=4)
            if len(ek.cells) != len(nb.cells):
                bad.append("%s: %d cells written; its English run %d" % (path, len(nb.cells), len(ek.cells)))
            elif bool(REAL_ROW.search(texts(ek))) != bool(REAL_ROW.search(texts(nb))):
                bad.append("%s: real-CPython rows in one edition's run and not the other's" % path)
for b in bad:
    print("50-notebook:", b, file=sys.stderr)
if bad:
    sys.exit(1)
print("50-notebook: %d written notebooks valid, each under 2 MB" % len(paths))
PY
  if [ "${NOTEBOOK_SKIP_BROWSER:-}" != 1 ]; then
    browser_check "$tmp/seed-shots" "$tmp"/seeds-html/*.html "$tmp"/seeds-ko-html/*.html \
      || fail "a notebook report failed the browser check"
  fi
fi

# The same notebooks through Jupyter (the pinned .venv's):
# `jupyter nbconvert --to html` of every notebook `conclab run` executed,
# opened in the browser check; and `nbconvert --execute` (then `--to html`)
# of NOTEBOOK_NBCONVERT_EXECUTE through the conclab kernel of a fresh build of
# this tree, in quick mode: a copy with the notebook's quick parameters
# injected (scripts/quick-params.py, papermill's injection with conclab's Go
# translator), and CONCLAB_QUICK=1 as `conclab run --quick` sets it.
# Every notebook is run even after a failure; the pass fails if any did.
if [ "${NOTEBOOK_SKIP_SEEDS:-}" != 1 ] && [ "${NOTEBOOK_SKIP_NBCONVERT:-}" != 1 ] \
  && compgen -G "notebooks/*.ipynb" >/dev/null; then
  nbc=$tmp/nbc
  mkdir -p "$nbc/bin"
  go build -o "$nbc/bin/conclab" ./cmd/conclab || fail "building conclab for the kernelspec failed"
  "$nbc/bin/conclab" install --prefix "$nbc/prefix" >/dev/null || fail "conclab install --prefix failed"
  # Only this kernelspec and no user configuration: Jupyter's directories in the temp dir.
  export JUPYTER_PATH=$nbc/prefix/share/jupyter JUPYTER_RUNTIME_DIR=$nbc/runtime
  export JUPYTER_CONFIG_DIR=$nbc/config JUPYTER_DATA_DIR=$nbc/data IPYTHONDIR=$nbc/ipython
  jupyter=("$py" -m jupyter) # the pinned Jupyter, whatever python3 is on PATH
  # nbconvert's pages load require.js and MathJax from cdnjs; offline,
  # require.js is the venv's (Voilà's copy) and MathJax an empty stand-in.
  requirejs=$(find "$(pwd)/.venv/share/jupyter" -name require.min.js | head -1)
  [ -n "$requirejs" ] || fail "no require.min.js in .venv/share/jupyter (Voilà ships one)"
  : >"$nbc/mathjax-offline.js"
  # A notebook with saved widget state (a lesson's lab.TryIt) makes nbconvert
  # load the widgets' HTML manager from unpkg; offline an empty stand-in (the
  # controls' static HTML form, which conclab's headless widgets leave in the
  # cell's output, still shows).
  : >"$nbc/widgets-offline.js"
  specs=$("${jupyter[@]}" kernelspec list 2>/dev/null) || fail "jupyter kernelspec list failed"
  grep -qF "$nbc/prefix/share/jupyter/kernels/conclab" <<<"$specs" \
    || fail "jupyter does not find the conclab kernelspec in $nbc/prefix: $specs"
  failed=()
  all_start=$(now_ms)
  # nbconvert_one NB: executes NB to $nbc/ipynb and exports it to
  # $nbc/html, setting status (ok, or FAILED and why).
  nbconvert_one() {
    local nb=$1 name errs a b
    name=$(basename "$nb" .ipynb)
    status=ok
    # require.js from the venv and an empty MathJax stand-in (as
    # 40-charts.sh), so the page loads offline. DEBUG: the log records the cells' outputs.
    # Executed to a notebook first, so error outputs can be found by type
    # (the HTML templates render them differently), then exported to HTML
    # from that notebook without running it again.
    if ! "$py" scripts/quick-params.py "$nbc/quick" "$nb" >"$nbc/$name.log" 2>&1; then
      status="FAILED (quick parameters)"
    elif ! CONCLAB_QUICK=1 "${jupyter[@]}" nbconvert --execute --to notebook --log-level=DEBUG \
      --ExecutePreprocessor.kernel_name=conclab --ExecutePreprocessor.timeout=300 \
      --output-dir "$nbc/ipynb" "$nbc/quick/$name.ipynb" >>"$nbc/$name.log" 2>&1; then
      status=FAILED
    elif errs=$("$py" -c 'import json,sys
nb=json.load(open(sys.argv[1]))
bad=["cell %d: %s: %s" % (i+1, o.get("ename"), o.get("evalue")) for i,c in enumerate(nb["cells"]) for o in c.get("outputs",[]) if o.get("output_type")=="error"]
print("; ".join(bad)); sys.exit(1 if bad else 0)' "$nbc/ipynb/$name.ipynb"); [ -n "$errs" ]; then
      status="FAILED (error output: $errs)"
    elif ! "${jupyter[@]}" nbconvert --to html --log-level=ERROR \
      --HTMLExporter.require_js_url="file://$requirejs" --HTMLExporter.mathjax_url="file://$nbc/mathjax-offline.js" \
      --HTMLExporter.widget_renderer_url="file://$nbc/widgets-offline.js" \
      --output-dir "$nbc/html" "$nbc/ipynb/$name.ipynb" >>"$nbc/$name.log" 2>&1; then
      status="FAILED (HTML export)"
    elif [ -f "$tmp/seeds-html/$name.html" ]; then
      # The kernel shows the same charts as `conclab run`.
      a=$({ grep -o 'data-conclab-chart="1"' "$tmp/seeds-html/$name.html" || true; } | wc -l)
      b=$({ grep -o 'data-conclab-chart="1"' "$nbc/html/$name.html" || true; } | wc -l)
      [ "$a" = "$b" ] || status="FAILED ($b charts; conclab run showed $a)"
    fi
  }
  # Export only: the notebooks conclab run executed, in one nbconvert per
  # edition (the Korean ones to export/ko).
  for ed in "" ko; do
    src=$tmp/seeds${ed:+-$ed}
    compgen -G "$src/*.ipynb" >/dev/null || continue
    mkdir -p "$nbc/export/$ed"
    if ! "${jupyter[@]}" nbconvert --to html --log-level=ERROR \
      --HTMLExporter.require_js_url="file://$requirejs" --HTMLExporter.mathjax_url="file://$nbc/mathjax-offline.js" \
      --HTMLExporter.widget_renderer_url="file://$nbc/widgets-offline.js" \
      --output-dir "$nbc/export/$ed" "$src"/*.ipynb >"$nbc/export.log" 2>&1; then
      cat "$nbc/export.log" >&2
      fail "jupyter nbconvert --to html of the notebooks conclab run executed ($src) failed"
    fi
  done
  echo "50-notebook: nbconvert --to html of $(find "$nbc/export" -name '*.html' | wc -l) executed notebooks took $(secs $(($(now_ms) - all_start)))"
  read -r -a execute <<<"${NOTEBOOK_NBCONVERT_EXECUTE-00-quickstart byo-server}"
  for name in "${execute[@]}"; do
    nb=notebooks/$name.ipynb
    [ -f "$nb" ] || fail "NOTEBOOK_NBCONVERT_EXECUTE: no notebook $nb"
    start=$(now_ms)
    nbconvert_one "$nb"
    printf '50-notebook: nbconvert %-28s %7s  %s\n' "$name" "$(secs $(($(now_ms) - start)))" "$status"
    if [ "$status" != ok ]; then
      failed+=("$name")
      nbconvert_failure "$nbc/$name.log" | sed "s/^/  $name: /" >&2
    fi
  done
  echo "50-notebook: nbconvert of notebooks/ took $(secs $(($(now_ms) - all_start)))"
  [ ${#failed[@]} -eq 0 ] || fail "nbconvert --execute through the conclab kernel failed for: ${failed[*]}"
  for nb in "$nbc"/ipynb/*.ipynb; do
    [ -e "$nb" ] && [ -n "${CONCLAB_BYO_URL:-}" ] || continue
    if grep -q CONCLAB_BYO_URL "notebooks/$(basename "$nb")" && ! grep -q "$CONCLAB_BYO_URL" "$nb"; then
      fail "$(basename "$nb") through the kernel reads CONCLAB_BYO_URL but never shows $CONCLAB_BYO_URL"
    fi
  done
  if [ "${NOTEBOOK_SKIP_BROWSER:-}" != 1 ]; then
    browser_check "$tmp/nbc-export-shots" "$nbc"/export/*.html "$nbc"/export/ko/*.html \
      || fail "an nbconvert HTML export of a notebook conclab run executed failed the browser check"
    browser_check "$tmp/nbc-shots" "$nbc"/html/*.html \
      || fail "an nbconvert HTML export of a notebook executed by the kernel failed the browser check"
  fi
fi

echo "50-notebook: ok"
