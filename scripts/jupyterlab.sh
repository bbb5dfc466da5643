#!/usr/bin/env bash
# Starts JupyterLab 4.6 from the pinned environment (.venv, made by
# scripts/setup.sh from python/requirements.lock) on 127.0.0.1 with a token,
# on notebooks/, with the "Go (conclab)" kernel as the default and conclab's
# chart extension; with --notebook, the same server as Notebook 7 (the
# one-notebook-per-page interface, built on JupyterLab 4). Jupyter prints the
# address to open (http://127.0.0.1:8888/lab?token=...). Ctrl-C twice stops
# it and its kernels.
#
#   bash scripts/jupyterlab.sh [--notebook] [--port N] [--notebook-dir DIR] [--ip ADDR] [jupyter-server options...]
#
# --ip defaults to 127.0.0.1 (the kernel runs code: keep it on loopback; the
# Dockerfile passes 0.0.0.0 inside the container and publishes on 127.0.0.1).
#
# The kernelspec and the chart extension are installed into .venv
# (scripts/jupyter-install.sh, as setup.sh does), with the lab's settings
# (jupyterlab/settings.json: no news or update checks, Go's tabs as tabs);
# Jupyter's config, data and runtime dirs, user settings and
# workspaces are private (CONCLAB_LAB_HOME, default .cache/jupyterlab), so
# nothing in ~/.local or ~/.jupyter is read or written. The token is
# $JUPYTER_TOKEN when set, a fresh random one otherwise. Runs scripts/setup.sh
# first when the binary or the environment is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
port=8888
ip=127.0.0.1
nbdir=$root/notebooks
app=lab
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --notebook) app=notebook; shift ;;
    --port) [ $# -ge 2 ] || { echo "jupyterlab.sh: --port needs a number" >&2; exit 2; }; port=$2; shift 2 ;;
    --port=*) port=${1#--port=}; shift ;;
    --ip) [ $# -ge 2 ] || { echo "jupyterlab.sh: --ip needs an address" >&2; exit 2; }; ip=$2; shift 2 ;;
    --ip=*) ip=${1#--ip=}; shift ;;
    --notebook-dir) [ $# -ge 2 ] || { echo "jupyterlab.sh: --notebook-dir needs a directory" >&2; exit 2; }; nbdir=$2; shift 2 ;;
    --notebook-dir=*) nbdir=${1#--notebook-dir=}; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) extra+=("$1"); shift ;;
  esac
done
case "$port" in
  ''|*[!0-9]*) echo "jupyterlab.sh: --port $port is not a port number" >&2; exit 2 ;;
esac
[ -d "$nbdir" ] || { echo "jupyterlab.sh: notebook dir $nbdir does not exist" >&2; exit 2; }
nbdir=$(cd "$nbdir" && pwd)

py=$root/.venv/bin/python # the pinned environment, whatever python3 is on PATH
if [ ! -x bin/conclab ] || [ ! -x "$py" ]; then
  bash scripts/setup.sh
elif command -v go >/dev/null; then
  # Rebuild after a pull: the kernelspec runs bin/conclab, and a binary from
  # older sources can start a kernel that never reports idle; the chart
  # extension it embeds first. Quick when nothing changed.
  bash scripts/setup.d/50-labextension.sh
  go build -o bin/conclab ./cmd/conclab
else
  echo "jupyterlab.sh: go is not on PATH; using bin/conclab as it is (run scripts/setup.sh after a pull)" >&2
fi
# The kernelspec and the chart extension of this binary, and the lab's
# settings, into the environment (idempotent, a few milliseconds).
bash scripts/jupyter-install.sh

home=${CONCLAB_LAB_HOME:-$root/.cache/jupyterlab}
mkdir -p "$home"
export JUPYTER_CONFIG_DIR=$home/config JUPYTER_DATA_DIR=$home/data JUPYTER_RUNTIME_DIR=$home/runtime
export IPYTHONDIR=$home/ipython
if [ -z "${JUPYTER_TOKEN:-}" ]; then
  JUPYTER_TOKEN=$("$py" -c 'import secrets; print(secrets.token_hex(24))')
fi
export JUPYTER_TOKEN # read by jupyter-server; kept off the command line (ps shows that)

flags=(--ServerApp.ip="$ip" --ServerApp.port="$port" --ServerApp.port_retries=0
  --ServerApp.open_browser=False --ServerApp.root_dir="$nbdir"
  --ServerApp.terminals_enabled=False # this server is for notebooks (a cell's `$ cmd` runs shell commands)
  --MappingKernelManager.default_kernel_name=conclab)
[ "$(id -u)" = 0 ] && flags+=(--ServerApp.allow_root=True)
# jupyter-server masks a token it read from the environment in its log, so
# the address to open is said here.
show=$ip
case "$ip" in 0.0.0.0|::|'*') show=127.0.0.1 ;; esac
case "$show" in *:*) show="[$show]" ;; esac
if [ "$app" = notebook ]; then name="Notebook $("$py" -c 'import notebook; print(notebook.__version__)')" path=tree
else name="JupyterLab $("$py" -c 'import jupyterlab; print(jupyterlab.__version__)')" path=lab
fi
echo "jupyterlab.sh: $name (conclab) is at http://$show:$port/$path?token=$JUPYTER_TOKEN once it has started"
exec "$py" -m jupyter "$app" "${flags[@]}" "${extra[@]}"
