#!/usr/bin/env bash
# The pinned Python environment: a virtual environment at .venv (gitignored)
# made from python/requirements.lock with pip's --require-hashes, so every
# machine gets the same packages: Jupyter (JupyterLab 4.6, Notebook 7.6,
# nbconvert, nbclient, jupyter_client, jupyter-kernel-test, papermill, Voilà,
# ipywidgets) and the sources' stack (FastAPI, uvicorn, gunicorn, Flask,
# Pillow, ...). Every script, test and notebook that runs Python uses
# .venv/bin/python; nothing depends on which python3 is first on PATH.
#
# The interpreter is Debian's Python 3.11 (/usr/bin/python3.11), the one the
# Dockerfile's image has too; CONCLAB_VENV_PYTHON picks another 3.11.
# Idempotent: skipped while .venv was made from this lock and this interpreter
# (a stamp holds their hash); otherwise .venv is made anew (pip's cache makes
# that quick after the first time).
set -euo pipefail
cd "$(dirname "$0")/../.."
py=${CONCLAB_VENV_PYTHON:-/usr/bin/python3.11}
lock=python/requirements.lock
[ -x "$py" ] || { echo "setup.d/20-python: $py not found (Debian: apt-get install python3.11-venv; or set CONCLAB_VENV_PYTHON)" >&2; exit 1; }
case "$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" in
  3.11) ;;
  *) echo "setup.d/20-python: $py is not Python 3.11 (the lock is for 3.11)" >&2; exit 1 ;;
esac
stamp="$(sha256sum "$lock" | cut -d' ' -f1) $("$py" -c 'import sys; print(sys.version)' | head -1) $(readlink -f "$py")"
if [ -x .venv/bin/python ] && [ "$(cat .venv/.conclab-stamp 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
t0=$(date +%s)
rm -rf .venv
"$py" -m venv .venv
# --no-deps: the lock already lists every transitive package; pip check below
# proves it is complete.
PIP_FIND_LINKS= .venv/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r "$lock"
.venv/bin/pip check >/dev/null || { .venv/bin/pip check >&2; echo "setup.d/20-python: the lock is inconsistent" >&2; exit 1; }
echo "$stamp" > .venv/.conclab-stamp
echo "setup.d/20-python: .venv from $lock ($(grep -c '^[a-zA-Z]' "$lock") packages, $("$py" --version)) in $(( $(date +%s) - t0 )) s"
