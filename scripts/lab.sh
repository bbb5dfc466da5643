#!/usr/bin/env bash
# The README's first command: set up a fresh machine, then run every notebook in
# notebooks/ headless and write HTML reports to reports/ (executed notebooks to
# reports/notebooks/). Extra arguments go to `conclab run` (e.g. --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p reports/notebooks
bin/conclab run --html reports --out reports/notebooks "$@" notebooks
echo "lab: reports written to $(pwd)/reports"
