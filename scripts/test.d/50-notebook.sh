#!/usr/bin/env bash
# Notebook runner integration: `conclab run` on the fixture notebooks, the
# written .ipynb files validated (and compared byte for byte with what
# Jupyter's own writer produces) by Debian's python3-nbformat, HTML reports
# checked, and bad input rejected with a non-zero exit and the input intact.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONCLAB=${CONCLAB:-conclab}
command -v "$CONCLAB" >/dev/null || CONCLAB=bin/conclab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "50-notebook: $*" >&2; exit 1; }

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

/usr/bin/python3 - "$tmp/out/in.ipynb" <<'PY'
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

# Charts in conclab's own HTML export, offline, in headless chromium (the
# charts area's browser check): the chart that carried the ECharts library is
# cleared, so the page relies on the exporter adding it once in the head.
if [ "${NOTEBOOK_SKIP_BROWSER:-}" = 1 ]; then
  echo "50-notebook: browser check skipped (NOTEBOOK_SKIP_BROWSER=1)"
else
  "$CONCLAB" run --html "$tmp/charts" --out "$tmp/charts" notebook/testdata/charts.ipynb 2>"$tmp/charts.log" \
    || { cat "$tmp/charts.log" >&2; fail "chart notebook failed"; }
  /usr/bin/python3 -W error -c 'import sys, nbformat; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))' "$tmp/charts/charts.ipynb" \
    || fail "executed chart notebook is not valid nbformat"
  n=$(grep -o 'data-conclab-echarts=' "$tmp/charts/charts.html" | wc -l)
  [ "$n" = 1 ] || fail "chart page carries the ECharts library $n times; want once"
  node charts/browser/check.mjs --shots "$tmp/shots" --min-charts 2 "conclab-run=file://$tmp/charts/charts.html" \
    || fail "charts in the exported page did not draw offline"
fi

# The lab's own notebooks (notebooks/*.ipynb), when present: a quick headless
# run of all of them, every written notebook validated, every report opened in
# the browser check. NOTEBOOK_SKIP_SEEDS=1 skips this part.
if [ "${NOTEBOOK_SKIP_SEEDS:-}" != 1 ] && compgen -G "notebooks/*.ipynb" >/dev/null; then
  start=$(date +%s)
  "$CONCLAB" run --quick --out "$tmp/seeds" --html "$tmp/seeds-html" notebooks \
    || fail "conclab run --quick notebooks failed"
  echo "50-notebook: quick run of notebooks/ took $(( $(date +%s) - start ))s"
  /usr/bin/python3 - "$tmp"/seeds/*.ipynb <<'PY' || fail "a written notebook is not valid nbformat 4.5"
import sys, warnings
import nbformat
warnings.simplefilter("error")
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5), path
print("50-notebook: %d written notebooks valid" % (len(sys.argv) - 1))
PY
  if [ "${NOTEBOOK_SKIP_BROWSER:-}" != 1 ]; then
    pages=()
    for h in "$tmp"/seeds-html/*.html; do
      if grep -q 'data-conclab-chart="1"' "$h"; then pages+=("$(basename "$h" .html)=file://$h"); fi
    done
    if [ ${#pages[@]} -gt 0 ]; then
      node charts/browser/check.mjs --shots "$tmp/seed-shots" "${pages[@]}" \
        || fail "a notebook report failed the browser check"
    fi
  fi
fi

echo "50-notebook: ok"
