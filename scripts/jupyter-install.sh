#!/usr/bin/env bash
# Puts conclab into the pinned environment's Jupyter (.venv): the "Go
# (conclab)" kernelspec and the charts' JupyterLab extension (both from
# bin/conclab: `conclab install --prefix .venv`), the lab's settings
# (jupyterlab/settings.json as JupyterLab's and Notebook 7's default setting
# overrides) and Voilà's (jupyterlab/voila.json: Notebook 7's own JupyterLab
# extension left out of Voilà pages, where it cannot load). Then .venv's
# jupyter lab, notebook, voila and nbconvert find all of it. Idempotent and
# quick; scripts/setup.sh runs it after building the binary, and
# scripts/jupyterlab.sh before every start.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x bin/conclab ] && [ -x .venv/bin/python ] || { echo "jupyter-install: bin/conclab or .venv missing: run scripts/setup.sh" >&2; exit 1; }
bin/conclab install --prefix .venv >/dev/null
etc=.venv/etc/jupyter
install -D -m 0644 jupyterlab/settings.json "$etc/labconfig/default_setting_overrides.json"
install -D -m 0644 jupyterlab/voila.json "$etc/voila.json"                                # `voila NOTEBOOK`
install -D -m 0644 jupyterlab/voila.json "$etc/jupyter_server_config.d/conclab-voila.json" # /voila/render on a Jupyter server
