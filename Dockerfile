# krm-coschedule as a container KRM function (Kptfile `image:`, kpt fn eval --image,
# kustomize `container:`). kpt runs it as `docker run --rm -i --network none --user nobody`
# (or podman, with KPT_FN_RUNTIME=podman). The image name needs a slash: kpt rewrites a
# name without one to gcr.io/kpt-fn/NAME.
#   podman build -t localhost/krm-coschedule:dev .          (or docker build)
#   kpt fn eval DIR --image localhost/krm-coschedule:dev --fn-config coschedule-policy.yaml
# BASE is any image with python3 (>= 3.10, venv included) as `python`; where Docker Hub is
# unreachable, tests/container/build.sh builds a local one from Debian's packages and
# mounts the host's pip configuration and CA bundle for the pip install (nothing of them
# is written into the image).
ARG BASE=docker.io/library/python:3.12-slim-bookworm
FROM ${BASE} AS build
# marks the build stage's images (the venv before it is copied over): tests/container/build.sh
# removes them once the image is built, so a build leaves no unused image behind
LABEL io.krm-coschedule.stage=build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY krm_fn ./krm_fn
# a self-contained venv, copied whole into the final stage; pip compiles the .pyc files
# here, at build time, so the function starts fast and never writes any at run time. pip
# is upgraded first: the console script of pip before 25.2 imports `re` before krm_fn, a
# quarter of a small input's start-up that krm_fn itself no longer pays (bench/README.md)
RUN python -m venv /opt/krm-coschedule \
    && /opt/krm-coschedule/bin/pip install --no-cache-dir --upgrade pip \
    && /opt/krm-coschedule/bin/pip install --no-cache-dir /src

FROM ${BASE}
# Writes no .pyc (it runs as nobody, maybe on a read-only root), needs no HOME (nobody's
# is /nonexistent; PYTHONNOUSERSITE keeps Python from looking there), unbuffered output.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONNOUSERSITE=1 \
    PATH=/opt/krm-coschedule/bin:$PATH
COPY --from=build /opt/krm-coschedule /opt/krm-coschedule
# nobody:nogroup, the user kpt runs functions as
USER 65534:65534
WORKDIR /tmp
ENTRYPOINT ["krm-coschedule"]
