#!/usr/bin/env bash
# Checks the committed notebooks (notebooks/*.ipynb, or the ones named): valid
# nbformat 4.5, no outputs or execution counts, every code cell gofmt-clean,
# Jupyter's own layout. Fails naming the notebook and the cell.
# Usage: scripts/check-notebooks.sh [--fix] [NOTEBOOK...]
#   --fix  rewrite the notebooks in place: outputs cleared, cells formatted.
# The checks are scripts/check-notebooks.py (nbformat, from the pinned
# .venv) with the cell formatter internal/cellfmt.
set -euo pipefail
cd "$(dirname "$0")/.."
py=$(pwd)/.venv/bin/python # the pinned environment (scripts/setup.d/20-python.sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fix=()
if [ "${1:-}" = --fix ]; then fix=(--fix); shift; fi
nbs=("$@")
[ ${#nbs[@]} -gt 0 ] || nbs=(notebooks/*.ipynb)
go build -o "$tmp/cellfmt" ./internal/cellfmt/cmd/cellfmt
"$py" scripts/check-notebooks.py --cellfmt "$tmp/cellfmt" "${fix[@]}" "${nbs[@]}"
