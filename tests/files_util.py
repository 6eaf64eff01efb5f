"""Helpers shared by the files-mode tests: a Pipeline, a PipelineRun using it, running the
CLI in a directory, and the kinds of the documents a file holds."""
from __future__ import annotations

import io
import os
from contextlib import redirect_stderr
from contextlib import redirect_stdout
from pathlib import Path

import yaml

from krm_fn.cli import main

PIPELINE = """\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  workspaces:
  - name: src
  tasks:
  - name: build
    workspaces:
    - name: src
      workspace: src
    taskRef:
      name: t
  - name: lint
    taskRef:
      name: l
"""


# a Pipeline with no tasks, named by the runs of namespace ci (`pipelineRef: {name: build}`)
PIPELINE_BUILD = """\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: build
  namespace: ci
spec:
  tasks: []
"""


def run_doc(name: str) -> str:
    return f"""\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: {name}
spec:
  pipelineRef:
    name: p
  workspaces:
  - name: src
    volumeClaimTemplate:
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests:
            storage: 1Gi
"""


def cli(cwd: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def kinds(path: Path) -> list[str]:
    """The kinds of the documents a YAML reader finds in the file (it must read)."""
    return [d["kind"] for d in yaml.safe_load_all(path.read_text()) if d is not None]
