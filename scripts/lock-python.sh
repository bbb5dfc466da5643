#!/usr/bin/env bash
# Regenerates python/requirements.lock from python/requirements.in: every
# transitive package pinned to an exact version with the hashes of all its
# files, for Python 3.11 on any platform (uv's universal resolution), so two
# machines installing the lock get the same packages. A maintainer's step, run
# after editing requirements.in; the lock is committed. uv itself comes from
# PyPI into a throwaway venv.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${CONCLAB_VENV_PYTHON:-/usr/bin/python3.11}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" -m venv "$tmp/uv"
"$tmp/uv/bin/pip" install -q uv==0.13.8
"$tmp/uv/bin/uv" pip compile --quiet --universal --generate-hashes --python-version 3.11 \
  --custom-compile-command "bash scripts/lock-python.sh" \
  python/requirements.in -o python/requirements.lock
echo "lock-python: wrote python/requirements.lock ($(grep -c '^[a-zA-Z]' python/requirements.lock) packages)"
