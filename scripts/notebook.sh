#!/usr/bin/env bash
# Starts Notebook 7 (the one-notebook-per-page interface, built on JupyterLab 4)
# from the pinned environment, as scripts/jupyterlab.sh does JupyterLab: on
# 127.0.0.1 with a token, on notebooks/, with the "Go (conclab)" kernel and
# conclab's chart extension. Takes the same options.
#
#   bash scripts/notebook.sh [--port N] [--notebook-dir DIR] [--ip ADDR] [jupyter-server options...]
exec bash "$(dirname "$0")/jupyterlab.sh" --notebook "$@"
