#!/usr/bin/env bash
# Starts conclab's JupyterLab (3.6, built from JupyterLab's npm packages by
# scripts/setup.d/50-jupyterlab.sh, served by Debian's jupyter-server and
# jupyterlab-server) on 127.0.0.1 with a token, on notebooks/, with the
# "Go (conclab)" kernel, and prints the URL to open. Ctrl-C stops it (and its
# kernels).
#
#   bash scripts/jupyterlab.sh [--port N] [--notebook-dir DIR] [--ip ADDR] [jupyter-server options...]
#
# --ip defaults to 127.0.0.1 (the kernel runs code: keep it on loopback; the
# Dockerfile passes 0.0.0.0 inside the container and publishes on 127.0.0.1).
#
# The kernelspec goes into a private prefix (.cache/jupyterlab/prefix, put on
# JUPYTER_PATH), never into ~/.local; Jupyter's config, data and runtime dirs
# are private too (CONCLAB_LAB_HOME, default .cache/jupyterlab). The token is
# $JUPYTER_TOKEN when set, a fresh random one otherwise. Runs scripts/setup.sh
# first when the binary or the JupyterLab build is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
port=8888
ip=127.0.0.1
nbdir=$root/notebooks
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port) [ $# -ge 2 ] || { echo "jupyterlab.sh: --port needs a number" >&2; exit 2; }; port=$2; shift 2 ;;
    --port=*) port=${1#--port=}; shift ;;
    --ip) [ $# -ge 2 ] || { echo "jupyterlab.sh: --ip needs an address" >&2; exit 2; }; ip=$2; shift 2 ;;
    --ip=*) ip=${1#--ip=}; shift ;;
    --notebook-dir) [ $# -ge 2 ] || { echo "jupyterlab.sh: --notebook-dir needs a directory" >&2; exit 2; }; nbdir=$2; shift 2 ;;
    --notebook-dir=*) nbdir=${1#--notebook-dir=}; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) extra+=("$1"); shift ;;
  esac
done
case "$port" in
  ''|*[!0-9]*) echo "jupyterlab.sh: --port $port is not a port number" >&2; exit 2 ;;
esac
[ -d "$nbdir" ] || { echo "jupyterlab.sh: notebook dir $nbdir does not exist" >&2; exit 2; }
nbdir=$(cd "$nbdir" && pwd)

PY=/usr/bin/python3 # Debian's Jupyter lives under Debian's Python
if [ ! -x bin/conclab ] || [ ! -f jupyterlab/build/bundle.js ]; then
  bash scripts/setup.sh
else
  # Rebuild after a pull: the kernelspec runs bin/conclab, and a binary from
  # older sources can start a kernel that never reports idle. Quick when
  # nothing changed.
  if command -v go >/dev/null; then
    go build -o bin/conclab ./cmd/conclab
  else
    echo "jupyterlab.sh: go is not on PATH; using bin/conclab as it is (run scripts/setup.sh after a pull)" >&2
  fi
fi

home=${CONCLAB_LAB_HOME:-$root/.cache/jupyterlab}
mkdir -p "$home"
bin/conclab install --prefix "$home/prefix" >/dev/null
export JUPYTER_PATH=$home/prefix/share/jupyter
export JUPYTER_CONFIG_DIR=$home/config JUPYTER_DATA_DIR=$home/data JUPYTER_RUNTIME_DIR=$home/runtime
export CONCLAB_LAB_STATE=$home/state
export IPYTHONDIR=$home/ipython
if [ -z "${JUPYTER_TOKEN:-}" ]; then
  JUPYTER_TOKEN=$("$PY" -c 'import secrets; print(secrets.token_hex(24))')
fi
export JUPYTER_TOKEN # read by jupyter-server; kept off the command line (ps shows that)

flags=(--ServerApp.ip="$ip" --ServerApp.port="$port" --ServerApp.port_retries=0
  --ServerApp.open_browser=False --ServerApp.root_dir="$nbdir"
  --MappingKernelManager.default_kernel_name=conclab)
[ "$(id -u)" = 0 ] && flags+=(--ServerApp.allow_root=True)
exec "$PY" jupyterlab/conclab_lab.py "${flags[@]}" "${extra[@]}"
