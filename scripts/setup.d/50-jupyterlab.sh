#!/usr/bin/env bash
# Builds conclab's JupyterLab (3.6, from JupyterLab's published npm packages)
# into jupyterlab/build, for scripts/jupyterlab.sh and the browser tests
# (scripts/test.d/45-jupyterlab.sh). npm ci from jupyterlab/package-lock.json
# into jupyterlab/node_modules, then webpack; both gitignored. Idempotent: each
# step is skipped while its inputs are unchanged (a stamp holds their hash),
# and a build of the same inputs is reused from ~/.cache/conclab/jupyterlab.
# CONCLAB_LAB_BUILD_MODE=development builds unminified (faster to build,
# larger to load); the default is production.
set -euo pipefail
cd "$(dirname "$0")/../../jupyterlab"
mode=${CONCLAB_LAB_BUILD_MODE:-production}
case "$mode" in production|development) ;; *) echo "setup.d/50-jupyterlab: CONCLAB_LAB_BUILD_MODE=$mode: want production or development" >&2; exit 2 ;; esac

hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

deps=$(hash_of package.json package-lock.json)
if [ "$(cat node_modules/.conclab-deps 2>/dev/null)" != "$deps" ]; then
  t0=$(date +%s)
  npm ci --no-audit --no-fund --loglevel=error
  echo "$deps" > node_modules/.conclab-deps
  echo "setup.d/50-jupyterlab: npm ci in $(( $(date +%s) - t0 )) s"
fi

inputs="$deps $(hash_of index.js webpack.config.js) $mode"
if [ -f build/bundle.js ] && [ "$(cat build/.conclab-build 2>/dev/null)" = "$inputs" ]; then
  exit 0
fi
# A build of the same inputs made by an earlier checkout on this machine (a
# fresh clone each CI run) is reused from the user's cache: the same inputs
# give the same bundle. CONCLAB_LAB_CACHE=0 always builds.
cache=${XDG_CACHE_HOME:-$HOME/.cache}/conclab/jupyterlab/$(echo "$inputs" | sha256sum | cut -d' ' -f1)
if [ "${CONCLAB_LAB_CACHE:-1}" != 0 ] && [ -f "$cache/bundle.js" ] && [ "$(cat "$cache/.conclab-build" 2>/dev/null)" = "$inputs" ]; then
  rm -rf build
  cp -a "$cache" build
  echo "setup.d/50-jupyterlab: JupyterLab build reused from $cache"
  exit 0
fi
t0=$(date +%s)
rm -rf build
npx --no-install webpack --mode="$mode" >build.log 2>&1 || {
  echo "setup.d/50-jupyterlab: webpack failed; the end of jupyterlab/build.log:" >&2
  tail -40 build.log >&2
  exit 1
}
echo "$inputs" > build/.conclab-build
if [ "${CONCLAB_LAB_CACHE:-1}" != 0 ]; then
  # Written beside, then renamed: a concurrent reader never sees half a build.
  mkdir -p "$(dirname "$cache")"
  tmpc=$(mktemp -d "$(dirname "$cache")/.tmp-XXXXXX")
  cp -a build/. "$tmpc/" && { mv -T "$tmpc" "$cache" 2>/dev/null || rm -rf "$tmpc"; }
fi
echo "setup.d/50-jupyterlab: built JupyterLab $(node -p 'require("@jupyterlab/application/package.json").version') ($mode) into jupyterlab/build in $(( $(date +%s) - t0 )) s"
