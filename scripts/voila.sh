#!/usr/bin/env bash
# Starts a notebook as a Voilà dashboard: the page shows the notebook's
# outputs and widgets, no code; each visitor gets a conclab kernel of their
# own that runs the notebook, then serves the widgets (drag a slider, the
# experiment runs again). From the pinned environment (.venv: Voilà 0.5.13,
# made by scripts/setup.sh from python/requirements.lock), on 127.0.0.1 with
# a token; Voilà prints nothing useful about the token, so this script
# prints the address to open (http://127.0.0.1:8866/?token=...). Ctrl-C stops
# it and its kernels.
#
#   bash scripts/voila.sh [NOTEBOOK.ipynb] [--port N] [--ip ADDR] [voila options...]
#
# NOTEBOOK defaults to widgets/testdata/tryit.ipynb (tokens and users of a
# FastAPI def endpoint: sliders, a live chart, the waterfall, Stop); give a
# lesson's path (notebooks/001-def-vs-async.ipynb) to show that instead.
# Each page visit runs the whole notebook in a kernel of its own first; a
# lesson's try-it keeps its controls' values in the page's address, which
# the next visit's kernel reads (Voilà gives it the query string), so a
# reload comes back to them (docs/widgets.md).
# A kernel whose page is gone is shut down once it has been idle with no
# page connected for CONCLAB_VOILA_CULL seconds (default 300; checked every
# quarter of that): Voilà 0.5.13's own shutdown when a page unloads is
# refused by its server (voila-dashboards/voila#1458: the POST carries no
# _xsrf), so a reloaded or closed page's kernel would stay otherwise. A
# page left open is never culled, however long it is read (its connection
# counts); the 300 s are for a page whose connection dropped (a laptop
# asleep, a network switch) to find its kernel when it comes back, and are
# what an abandoned kernel (about 140 MB with its helper) costs at most.
# A page whose kernel stopped says so and offers a reload.
#
# --ip defaults to 127.0.0.1: the kernel runs code; keep it on loopback.
# The token is $JUPYTER_TOKEN when set, a fresh random one otherwise, given
# to Voilà in a config file readable only by you (not on the command line,
# which ps shows). The kernelspec, the chart extension and Voilà's settings
# are installed into .venv (scripts/jupyter-install.sh); Jupyter's config,
# data and runtime dirs are private (CONCLAB_VOILA_HOME, default
# .cache/voila), so nothing in ~/.local or ~/.jupyter is read or written.
# Runs scripts/setup.sh first when the binary or the environment is missing.
set -euo pipefail
start=$(pwd)
cd "$(dirname "$0")/.."
root=$(pwd)
port=8866
ip=127.0.0.1
nb=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port) [ $# -ge 2 ] || { echo "voila.sh: --port needs a number" >&2; exit 2; }; port=$2; shift 2 ;;
    --port=*) port=${1#--port=}; shift ;;
    --ip) [ $# -ge 2 ] || { echo "voila.sh: --ip needs an address" >&2; exit 2; }; ip=$2; shift 2 ;;
    --ip=*) ip=${1#--ip=}; shift ;;
    -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
    -*) extra+=("$1"); shift ;;
    *)
      [ -z "$nb" ] || { echo "voila.sh: one notebook at a time (got $nb and $1)" >&2; exit 2; }
      nb=$1; shift ;;
  esac
done
if [ -z "$nb" ]; then
  nb=$root/widgets/testdata/tryit.ipynb
fi
case "$nb" in
  /*) ;;
  *) nb=$start/$nb ;; # relative to where the script was started
esac
[ -f "$nb" ] || { echo "voila.sh: no notebook $nb" >&2; exit 2; }
case "$nb" in *.ipynb) ;; *) echo "voila.sh: $nb is not a .ipynb notebook" >&2; exit 2 ;; esac
case "$port" in
  ''|*[!0-9]*) echo "voila.sh: --port $port is not a port number" >&2; exit 2 ;;
esac

py=$root/.venv/bin/python # the pinned environment, whatever python3 is on PATH
if [ ! -x bin/conclab ] || [ ! -x "$py" ]; then
  bash scripts/setup.sh
elif command -v go >/dev/null; then
  # After a pull: the kernelspec runs bin/conclab, which embeds the chart
  # extension. Quick when nothing changed.
  bash scripts/setup.d/50-labextension.sh
  go build -o bin/conclab ./cmd/conclab
else
  echo "voila.sh: go is not on PATH; using bin/conclab as it is (run scripts/setup.sh after a pull)" >&2
fi
bash scripts/jupyter-install.sh

home=${CONCLAB_VOILA_HOME:-$root/.cache/voila}
mkdir -p "$home/config" "$home/data" "$home/runtime"
chmod 700 "$home"
export JUPYTER_CONFIG_DIR=$home/config JUPYTER_DATA_DIR=$home/data JUPYTER_RUNTIME_DIR=$home/runtime
export IPYTHONDIR=$home/ipython
token=${JUPYTER_TOKEN:-}
if [ -z "$token" ]; then
  token=$("$py" -c 'import secrets; print(secrets.token_hex(24))')
fi
case "$token" in *[!A-Za-z0-9_-]*) echo "voila.sh: JUPYTER_TOKEN may hold letters, digits, - and _ only" >&2; exit 2 ;; esac
# Voilà reads voila.json from every config dir, this private one first.
(umask 077 && printf '{"Voila": {"token": "%s"}}\n' "$token" >"$JUPYTER_CONFIG_DIR/voila.json")

cull=${CONCLAB_VOILA_CULL:-300}
case "$cull" in
  ''|*[!0-9]*|0) echo "voila.sh: CONCLAB_VOILA_CULL=$cull: want a number of seconds, 1 or more" >&2; exit 2 ;;
esac
flags=(--no-browser --Voila.ip="$ip" --port="$port" --Voila.port_retries=0 --Voila.connection_dir_root="$JUPYTER_RUNTIME_DIR"
  --VoilaConfiguration.show_tracebacks=True
  --MappingKernelManager.cull_idle_timeout="$cull" --MappingKernelManager.cull_interval=$(((cull + 3) / 4)))
show=$ip
case "$ip" in 0.0.0.0|::|'*') show=127.0.0.1 ;; esac
case "$show" in *:*) show="[$show]" ;; esac
echo "voila.sh: Voilà $("$py" -c 'import voila; print(voila.__version__)') (conclab) shows $(basename "$nb") at http://$show:$port/?token=$token once it has started"
cd "$(dirname "$nb")"
exec "$py" -m voila "${flags[@]}" "${extra[@]}" "$(basename "$nb")"
