#!/usr/bin/env bash
# Installs everything conclab and its tests need on a fresh Debian machine and
# builds the binary into ./bin/conclab. Idempotent: a second run is quick.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  # the Python the pinned environment is made from (scripts/setup.d/20-python.sh:
  # .venv from python/requirements.lock — Jupyter and the sources' stack come from PyPI)
  python3.11 python3.11-venv
  # browser tests (procps: pgrep, to check no kernel outlives the JupyterLab test; curl: the
  # test scripts wait for servers with it)
  chromium procps curl
  # databases for the database workload
  mariadb-server postgresql
  # peers for the load-generator comparison
  wrk hyperfine
)
# Front-end assets (ECharts from npm): Debian's nodejs/npm only when no node/npm is present
# (a NodeSource nodejs already bundles npm and conflicts with Debian's npm package).
command -v node >/dev/null 2>&1 || APT_PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(npm)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "setup: missing Debian packages: ${missing[*]}" >&2; exit 1
  fi
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm assets (ECharts), when the project declares them.
if [ -f package.json ]; then
  if [ ! -d node_modules ] || [ package.json -nt node_modules ] || { [ -f package-lock.json ] && [ package-lock.json -nt node_modules ]; }; then
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
    touch node_modules
  fi
fi
for hook in scripts/setup.d/*.sh; do
  [ -e "$hook" ] || continue
  bash "$hook"
done

go mod download
mkdir -p bin
go build -o bin/conclab ./cmd/conclab
echo "setup: built $(pwd)/bin/conclab"
# The kernelspec and the charts' JupyterLab extension (embedded in the binary)
# into the pinned environment, with the lab's settings, so that its jupyter
# lab, notebook, voila and nbconvert find them.
bash scripts/jupyter-install.sh
