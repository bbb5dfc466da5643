#!/usr/bin/env bash
# conclab's own Python package, installed into .venv after the hashed lock
# (setup.d/20-python.sh): python/conclab-papermill, papermill's Go translator
# (docs/notebook.md, "Parameters"). A local path install: --no-deps (papermill
# comes from the lock), --no-index (nothing is fetched), --no-build-isolation
# (its in-tree build backend needs only the standard library).
# Idempotent: skipped while .venv holds this version of the package's files
# (a stamp holds their hash); a new .venv (a new lock) has no stamp.
set -euo pipefail
cd "$(dirname "$0")/../.."
pkg=python/conclab-papermill
[ -x .venv/bin/python ] || { echo "setup.d/21-python-local: no .venv (setup.d/20-python.sh makes it)" >&2; exit 1; }
stamp=$(cd "$pkg" && find . -type f \( -name '*.py' -o -name '*.toml' \) -not -path '*/__pycache__/*' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
if [ "$(cat .venv/.conclab-local-stamp 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
# pip copies the source tree to build it; build artifacts stay out of it.
PIP_FIND_LINKS= .venv/bin/pip install --quiet --disable-pip-version-check --no-deps --no-index \
  --no-build-isolation --force-reinstall "./$pkg"
.venv/bin/pip check >/dev/null || { .venv/bin/pip check >&2; exit 1; }
.venv/bin/python -c 'import papermill.translators as t, papermill.engines  # loads the entry points
t.papermill_translators.find_translator("conclab", "go")' \
  || { echo "setup.d/21-python-local: papermill does not find the Go translator" >&2; exit 1; }
echo "$stamp" > .venv/.conclab-local-stamp
echo "setup.d/21-python-local: installed $pkg into .venv"
