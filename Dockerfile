# conclab in JupyterLab:
#   docker build -t conclab . && docker run --rm -p 127.0.0.1:8888:8888 conclab
# then open the http://127.0.0.1:8888/lab?token=... address the container prints — the
# notebooks open with the "Go (conclab)" kernel and its charts. The kernel runs code: keep
# the port on 127.0.0.1 and the token on.
#
# What runs is what CI proves: scripts/setup.sh (the README's first command) makes the
# pinned Python environment .venv from python/requirements.lock (JupyterLab 4.6.6,
# Notebook 7.6.5, ...; pip --require-hashes), builds the charts' JupyterLab extension and
# the binary and installs both into .venv; scripts/jupyterlab.sh serves JupyterLab from
# .venv (scripts/test.d/45-jupyterlab.sh drives the same script in the browser tests).
# Debian bookworm gives Python 3.11, Node and the test tools.
FROM golang:1.26-bookworm

ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /opt/conclab
COPY . .

RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git nodejs npm python3.11 python3.11-venv \
 && bash scripts/setup.sh \
 && install -m 0755 bin/conclab /usr/local/bin/conclab \
 && rm -rf /var/lib/apt/lists/* jupyterlab/extension/node_modules /root/.cache/pip

# Inside the container the server listens on every interface so the published port reaches
# it; publish it on 127.0.0.1 only (above). Notebooks, settings and Jupyter's state live in
# /opt/conclab (scripts/jupyterlab.sh keeps them out of ~/.local). `docker run ...
# conclab bash scripts/notebook.sh --port 8888 --ip 0.0.0.0` serves Notebook 7 instead.
EXPOSE 8888
CMD ["bash", "scripts/jupyterlab.sh", "--port", "8888", "--ip", "0.0.0.0"]
