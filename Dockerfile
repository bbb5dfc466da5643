# conclab in JupyterLab:
#   docker build -t conclab . && docker run --rm -p 127.0.0.1:8888:8888 conclab
# then open the http://127.0.0.1:8888/lab?token=... address the container prints — the
# notebooks open with the "Go (conclab)" kernel. The kernel runs code: keep the port on
# 127.0.0.1 and the token on (JupyterLab's default).
#
# The steps are the ones .ci/run proves on every submission: scripts/setup.sh installs the
# Debian packages (Jupyter, the sources' Python stack, databases, chromium) and the npm
# assets and builds bin/conclab. Only JupyterLab is added here: Debian does not package it.
FROM golang:1.26-bookworm

ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /opt/conclab
COPY . .

RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git nodejs npm python3-pip \
 && bash scripts/setup.sh \
 && pip3 install --no-cache-dir --break-system-packages jupyterlab \
 && install -m 0755 bin/conclab /usr/local/bin/conclab \
 && conclab install --prefix /usr/local \
 && rm -rf /var/lib/apt/lists/*

# The notebooks, with the conclab kernel as their kernelspec.
RUN mkdir -p /work && cp -r notebooks /work/notebooks
WORKDIR /work/notebooks
EXPOSE 8888
CMD ["jupyter", "lab", "--ip=0.0.0.0", "--port=8888", "--allow-root", "--no-browser", \
     "--MappingKernelManager.default_kernel_name=conclab"]
