#!/usr/bin/env bash
# Builds conclab's JupyterLab extension — jupyterlab/extension, the renderer
# of a chart's own MIME type (charts.MIMEType) for JupyterLab 4, Notebook 7
# and Voila — into jupyterlab/labextension/build (gitignored), which the binary
# embeds (package jupyterlab; `conclab install` writes it beside the
# kernelspec, and setup.sh installs both into .venv). npm ci from
# jupyterlab/extension/package-lock.json (ECharts and @jupyter/builder), then
# the pinned venv's jupyter-builder against the locked JupyterLab's core
# package (its staging/package.json: the shared packages and their versions).
# Idempotent: each step is skipped while its inputs are unchanged (stamps in
# jupyterlab/extension/node_modules hold their hash). Needs .venv
# (setup.d/20-python.sh runs first).
set -euo pipefail
cd "$(dirname "$0")/../.."
ext=jupyterlab/extension
out=jupyterlab/labextension/build
py=.venv/bin/python
[ -x "$py" ] || { echo "setup.d/50-labextension: $py missing (setup.d/20-python.sh makes it)" >&2; exit 1; }
core=$(ls .venv/lib/python3*/site-packages/jupyterlab/staging/package.json 2>/dev/null | head -1)
[ -f "$core" ] || { echo "setup.d/50-labextension: the locked JupyterLab's staging/package.json is not in .venv" >&2; exit 1; }

hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

deps=$(hash_of $ext/package.json $ext/package-lock.json)
if [ "$(cat $ext/node_modules/.conclab-deps 2>/dev/null)" != "$deps" ]; then
  t0=$(date +%s)
  (cd $ext && npm ci --no-audit --no-fund --loglevel=error)
  echo "$deps" > $ext/node_modules/.conclab-deps
  echo "setup.d/50-labextension: npm ci in $(( $(date +%s) - t0 )) s"
fi

inputs="$deps $(hash_of $ext/src/*.js $ext/style/*.css charts/render.js "$core")"
if [ -f $out/package.json ] && [ "$(cat $ext/node_modules/.conclab-build 2>/dev/null)" = "$inputs" ]; then
  exit 0
fi
t0=$(date +%s)
rm -rf $out
if ! .venv/bin/jupyter-builder build --core-package-file "$core" $ext >$ext/node_modules/.build.log 2>&1; then
  echo "setup.d/50-labextension: jupyter-builder failed; the end of its log:" >&2
  tail -40 $ext/node_modules/.build.log >&2
  exit 1
fi
[ -f $out/package.json ] || { echo "setup.d/50-labextension: the build wrote no $out/package.json" >&2; exit 1; }
echo "$inputs" > $ext/node_modules/.conclab-build
echo "setup.d/50-labextension: built $(node -p "require('./$ext/package.json').name") into $out in $(( $(date +%s) - t0 )) s"
