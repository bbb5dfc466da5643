#!/usr/bin/env bash
# Checks the committed notebooks (notebooks/*.ipynb, or the ones named): valid
# nbformat 4.5, no outputs or execution counts, every code cell gofmt-clean,
# Jupyter's own layout. Fails naming the notebook and the cell.
# With no NOTEBOOK it checks notebooks/*.ipynb and notebooks/ko/*.ipynb, then
# that every lesson has its Korean edition with the same code cells and quick
# parameters (scripts/check-editions.py).
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
all=
if [ ${#nbs[@]} -eq 0 ]; then
  all=1
  shopt -s nullglob
  nbs=(notebooks/*.ipynb notebooks/ko/*.ipynb)
  shopt -u nullglob
fi
go build -o "$tmp/cellfmt" ./internal/cellfmt/cmd/cellfmt
"$py" scripts/check-notebooks.py --cellfmt "$tmp/cellfmt" "${fix[@]}" "${nbs[@]}"
if [ -n "$all" ]; then
  "$py" scripts/check-editions.py --dir notebooks
fi
