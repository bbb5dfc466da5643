# conclab in JupyterLab:
#   docker build -t conclab . && docker run --rm -p 127.0.0.1:8888:8888 conclab
# then open the http://127.0.0.1:8888/lab?token=... address the container prints — the
# notebooks open with the "Go (conclab)" kernel. The kernel runs code: keep the port on
# 127.0.0.1 and the token on.
#
# What runs is what CI proves (scripts/test.d/45-jupyterlab.sh): JupyterLab 3.6.8, built from
# JupyterLab's npm packages by scripts/setup.sh (setup.d/50-jupyterlab.sh, pinned by
# jupyterlab/package-lock.json), served by scripts/jupyterlab.sh on Debian bookworm's
# jupyter-server and jupyterlab-server, pinned below to the versions CI runs.
FROM golang:1.26-bookworm

ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /opt/conclab
COPY . .

RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git nodejs npm \
      python3-jupyter-server=1.23.3-1 python3-jupyterlab-server=2.16.5-1 \
 && bash scripts/setup.sh \
 && install -m 0755 bin/conclab /usr/local/bin/conclab \
 && rm -rf /var/lib/apt/lists/* jupyterlab/node_modules

# Inside the container the server listens on every interface so the published port reaches
# it; publish it on 127.0.0.1 only (above). Notebooks, settings and the kernelspec prefix
# live in /opt/conclab (scripts/jupyterlab.sh keeps them out of ~/.local).
EXPOSE 8888
CMD ["bash", "scripts/jupyterlab.sh", "--port", "8888", "--ip", "0.0.0.0"]
