"""Generate a synthetic kpt ResourceList the size of a GitOps repo.

Deployments, Services and ConfigMaps (with comments, quoted strings and kpt path/index
annotations), plus a configurable share of Tekton PipelineRuns / TaskRuns and Shipwright
BuildRuns with PVC workspaces: the items krm-coschedule parses and rewrites.

    python bench/gen.py --items 1000 --targets 0.05 --seed 1 > list.yaml
    python bench/gen.py --pipelinerun-only > one.yaml
"""
from __future__ import annotations

import argparse
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path

TARGET_KINDS = ("PipelineRun", "TaskRun", "BuildRun")
PLAIN_KINDS = ("Deployment", "Service", "ConfigMap")


def _ann(path: str | None, index: int) -> str:
    if path is None:  # a document in a file of its own: no kpt annotations
        return ""
    return (
        "    annotations:\n"
        f"      config.kubernetes.io/index: '{index}'\n"
        f"      config.kubernetes.io/path: '{path}'\n"
        f"      internal.config.kubernetes.io/index: '{index}'\n"
        f"      internal.config.kubernetes.io/path: '{path}'\n"
    )


def deployment(n: int, ns: str, path: str | None, idx: int, rnd: random.Random) -> str:
    replicas = rnd.randint(1, 5)
    return (
        f"- # Deployment {n}: owned by team-{n % 7}\n"
        "  apiVersion: apps/v1\n"
        "  kind: Deployment\n"
        "  metadata:\n"
        f"    name: app-{n}\n"
        f"    namespace: {ns}\n"
        "    labels:\n"
        f"      app.kubernetes.io/name: app-{n}\n"
        "      app.kubernetes.io/part-of: shop\n"
        + _ann(path, idx)
        + "  spec:\n"
        f"    replicas: {replicas} # tuned by hand\n"
        "    selector:\n"
        "      matchLabels:\n"
        f"        app.kubernetes.io/name: app-{n}\n"
        "    template:\n"
        "      metadata:\n"
        "        labels:\n"
        f"          app.kubernetes.io/name: app-{n}\n"
        "      spec:\n"
        "        containers:\n"
        "        - name: app\n"
        f'          image: "registry.example.com/shop/app-{n}:1.{rnd.randint(0, 40)}.{rnd.randint(0, 9)}"\n'
        "          ports:\n"
        "          - containerPort: 8080\n"
        "            name: http\n"
        "          env:\n"
        "          - name: FEATURE_X\n"
        '            value: "yes"\n'
        "          - name: LOG_LEVEL\n"
        "            value: info\n"
        "          resources:\n"
        "            requests: {cpu: 100m, memory: 128Mi}\n"
        "            limits:\n"
        "              memory: 256Mi\n"
    )


def service(n: int, ns: str, path: str | None, idx: int, rnd: random.Random) -> str:
    return (
        "- apiVersion: v1\n"
        "  kind: Service\n"
        "  metadata:\n"
        f"    name: app-{n}\n"
        f"    namespace: {ns}\n"
        + _ann(path, idx)
        + "  spec:\n"
        "    # ClusterIP only: the ingress lives elsewhere\n"
        "    type: ClusterIP\n"
        "    selector:\n"
        f"      app.kubernetes.io/name: app-{n}\n"
        "    ports:\n"
        "    - name: http\n"
        "      port: 80\n"
        "      targetPort: http\n"
    )


def configmap(n: int, ns: str, path: str | None, idx: int, rnd: random.Random) -> str:
    return (
        "- apiVersion: v1\n"
        "  kind: ConfigMap\n"
        "  metadata:\n"
        f"    name: app-{n}-config\n"
        f"    namespace: {ns}\n"
        + _ann(path, idx)
        + "  data:\n"
        '    enabled: "true"\n'
        f"    threshold: '{rnd.randint(1, 999)}'\n"
        "    settings.yaml: |\n"
        "      # embedded file, comments are data here\n"
        "      retries: 3\n"
        f"      endpoint: https://api-{n}.example.com\n"
    )


def pipelinerun(n: int, ns: str, path: str | None, idx: int, rnd: random.Random) -> str:
    # the Pipeline is embedded: coschedule `workspaces` needs to see which tasks use a PVC
    return (
        f"- # nightly build {n}\n"
        "  apiVersion: tekton.dev/v1\n"
        "  kind: PipelineRun\n"
        "  metadata:\n"
        f"    name: build-{n}\n"
        f"    namespace: {ns}\n"
        + _ann(path, idx)
        + "  spec:\n"
        "    params:\n"
        "    - name: revision\n"
        f'      value: "{rnd.randrange(16**8):08x}"\n'
        "    pipelineSpec:\n"
        "      workspaces:\n"
        "      - name: source\n"
        "      - name: cache\n"
        "      tasks:\n"
        "      - name: clone # fetches the revision\n"
        "        taskRef:\n"
        "          name: git-clone\n"
        "        workspaces:\n"
        "        - name: output\n"
        "          workspace: source\n"
        "      - name: test\n"
        "        runAfter: [clone]\n"
        "        taskRef:\n"
        "          name: go-test\n"
        "        workspaces:\n"
        "        - name: source\n"
        "          workspace: source\n"
        "      - name: warm-cache\n"
        "        taskRef:\n"
        "          name: cache-fetch\n"
        "        workspaces:\n"
        "        - name: cache\n"
        "          workspace: cache\n"
        "      - name: notify\n"
        "        runAfter: [test]\n"
        "        taskRef:\n"
        "          name: send-to-chat\n"
        "    workspaces:\n"
        "    - name: source # cloned repo\n"
        "      volumeClaimTemplate:\n"
        "        spec:\n"
        "          accessModes: [ReadWriteOnce]\n"
        "          resources:\n"
        "            requests:\n"
        "              storage: 1Gi\n"
        "    - name: cache\n"
        "      persistentVolumeClaim:\n"
        f"        claimName: cache-{n % 5}\n"
    )


def taskrun(n: int, ns: str, path: str | None, idx: int, rnd: random.Random) -> str:
    return (
        "- apiVersion: tekton.dev/v1\n"
        "  kind: TaskRun\n"
        "  metadata:\n"
        f"    name: lint-{n}\n"
        f"    namespace: {ns}\n"
        + _ann(path, idx)
        + "  spec:\n"
        "    taskRef:\n"
        "      name: lint\n"
        "    workspaces:\n"
        "    - name: source\n"
        "      persistentVolumeClaim:\n"
        f"        claimName: src-{n}\n"
    )


def buildrun(n: int, ns: str, path: str | None, idx: int, rnd: random.Random) -> str:
    return (
        "- apiVersion: shipwright.io/v1beta1\n"
        "  kind: BuildRun\n"
        "  metadata:\n"
        f"    name: image-{n}\n"
        f"    namespace: {ns}\n"
        + _ann(path, idx)
        + "  spec:\n"
        "    build:\n"
        "      name: image\n"
        "    volumes:\n"
        "    - name: cache\n"
        "      persistentVolumeClaim:\n"
        f"        claimName: build-cache-{n % 3}\n"
    )


_MAKERS = {
    "Deployment": deployment,
    "Service": service,
    "ConfigMap": configmap,
    "PipelineRun": pipelinerun,
    "TaskRun": taskrun,
    "BuildRun": buildrun,
}


CONFIG = """functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: CoschedulePolicy
  metadata:
    name: coschedule
    annotations:
      config.kubernetes.io/local-config: "true"
  spec:
    coschedule: workspaces
    assistant:
      podTemplate:
        nodeSelector:
          pool: ci
"""


def _kinds(n: int, targets: float, rnd: random.Random) -> list[str]:
    """The kinds of n objects, a `targets` share of them runs, in a shuffled order."""
    n_targets = round(n * targets)
    kinds = [TARGET_KINDS[i % len(TARGET_KINDS)] for i in range(n_targets)]
    kinds += [PLAIN_KINDS[i % len(PLAIN_KINDS)] for i in range(n - n_targets)]
    rnd.shuffle(kinds)
    return kinds


def generate(items: int, targets: float = 0.05, seed: int = 1, config: bool = True) -> str:
    """A ResourceList of `items` objects, a `targets` share of them Tekton/Shipwright runs,
    with a CoschedulePolicy functionConfig unless `config` is false."""
    rnd = random.Random(seed)
    kinds = _kinds(items, targets, rnd)
    out = ["# generated by bench/gen.py\n", "apiVersion: config.kubernetes.io/v1\n", "kind: ResourceList\n"]
    out.append("items:\n" if kinds else "items: []\n")
    per_file: dict[str, int] = {}
    for n, kind in enumerate(kinds):
        ns = f"team-{n % 13}"
        path = f"{ns}/{kind.lower()}s.yaml"
        idx = per_file.get(path, 0)
        per_file[path] = idx + 1
        out.append(_MAKERS[kind](n, ns, path, idx, rnd))
    if config:
        out.append(CONFIG)
    return "".join(out)


def documents(n: int, targets: float = 0.05, seed: int = 1) -> str:
    """The objects of generate(n, targets, seed), without kpt's annotations, as one
    multi-document YAML file (files mode's documents-per-file workload)."""
    rnd = random.Random(seed)
    kinds = _kinds(n, targets, rnd)
    docs = []
    for k, kind in enumerate(kinds):
        entry = _MAKERS[kind](k, f"team-{k % 13}", None, 0, rnd)
        docs.append("".join(line[2:] for line in entry.splitlines(keepends=True)))
    return "---\n".join(docs)


# --------------------------------------------------------------------------- a kpt package

PACKAGE_POLICY = """\
# The policy of this package (the Kptfile names it; pre-commit passes it with --config)
apiVersion: fn.kpt.dev/v1alpha1
kind: CoschedulePolicy
metadata:
  name: coschedule
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  coschedule: workspaces
  assistant:
    podTemplate:
      nodeSelector:
        pool: ci   # the CI node pool
"""

KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: ci-runs
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: 'Nightly PipelineRuns of every service, one file per run'
pipeline:
  mutators:
  - exec: krm-coschedule
    configPath: coschedule-policy.yaml
"""

PIPELINE = """\
# The pipeline every service runs: clone, test and build the image; the cache is warmed
# alongside. Each task uses at most one PVC-backed workspace (coschedule: workspaces).
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: build-and-test
  namespace: ci
  labels:
    app.kubernetes.io/part-of: "shop"
spec:
  params:
    - name: revision
      type: string
    - name: repo-url
      type: string
  workspaces:
    - name: source
    - name: cache
    - name: docker-config
      optional: true
  tasks:
    - name: clone
      taskRef:
        name: git-clone
      params:
        - name: url
          value: $(params.repo-url)
        - name: revision
          value: $(params.revision)
      workspaces:
        - name: output
          workspace: source
    - name: unit-test   # go test ./...
      runAfter: ["clone"]
      taskRef:
        name: go-test
      workspaces:
        - name: source
          workspace: source
    - name: build-image
      runAfter:
        - unit-test
      taskRef:
        name: kaniko
      workspaces:
        - name: source
          workspace: source
        - name: dockerconfig
          workspace: docker-config
    - name: warm-cache
      taskRef:
        name: cache-fetch
      workspaces:
        - name: cache
          workspace: cache
  finally:
    - name: notify
      taskRef:
        name: send-to-chat
      params:
        - name: status
          value: "$(tasks.status)"
"""

TASKS = """\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: go-test
  namespace: ci
spec:
  workspaces:
  - name: source
  steps:
  - name: test
    image: golang:1.22
    workingDir: $(workspaces.source.path)
    script: |
      #!/bin/sh
      go test ./...
---
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: cache-fetch
  namespace: ci
spec:
  workspaces:
  - name: cache
  steps:
  - name: fetch
    image: 'registry.example.com/tools/cache:2.1'
    args: ["fetch", "--into", "$(workspaces.cache.path)"]
"""

RBAC = """\
# CI service account and what it may do in the namespace
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ci-bot
  namespace: ci
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ci-bot-edit
  namespace: ci
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: edit
subjects:
- kind: ServiceAccount
  name: ci-bot
  namespace: ci
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ci-settings
  namespace: ci
data:
  chat-channel: "#ci"
  retries: '3'
"""


def package_run(n: int, rnd: random.Random) -> str:
    """One PipelineRun file as people write it: on the package's Pipeline (pipelineRef), two
    volumeClaimTemplate workspaces and a Secret one, comments and quoting; a third of the files
    with indentless sequences (`- ` at the key's column), the others indented."""
    svc = f"svc-{n:04d}"
    off = "" if n % 3 == 0 else "  "  # a sequence's dashes: at its key's column, or indented
    d = "  " + off  # the dash column of spec's sequences
    rev = f"{rnd.randrange(16**8):08x}"
    size = rnd.choice(("1Gi", "2Gi", "5Gi"))
    template = (
        "  taskRunTemplate:\n"
        "    serviceAccountName: ci-bot\n"
        "    podTemplate:\n"
        "      nodeSelector:\n"
        "        disktype: ssd\n"
    ) if n % 4 == 0 else (
        "  taskRunTemplate:\n"
        "    serviceAccountName: ci-bot\n"
    )
    return (
        f"# Nightly build of {svc} (team-{n % 7})\n"
        "apiVersion: tekton.dev/v1\n"
        "kind: PipelineRun\n"
        "metadata:\n"
        f"  name: nightly-{svc}\n"
        "  namespace: ci\n"
        "  labels:\n"
        f"    app.kubernetes.io/name: {svc}\n"
        '    app.kubernetes.io/part-of: "shop"\n'
        f"    team: team-{n % 7}\n"
        "  annotations:\n"
        f"    description: 'nightly build of {svc}'\n"
        "spec:\n"
        "  pipelineRef:\n"
        "    name: build-and-test\n"
        "  params:\n"
        f"{d}- name: revision\n"
        f'{d}  value: "{rev}"   # pinned by the release bot\n'
        f"{d}- name: repo-url\n"
        f"{d}  value: https://git.example.com/shop/{svc}.git\n"
        + template
        + "  timeouts:\n"
        '    pipeline: "1h0m0s"\n'
        "  workspaces:\n"
        f"{d}- name: source # the clone, shared by clone, unit-test and build-image\n"
        f"{d}  volumeClaimTemplate:\n"
        f"{d}    spec:\n"
        f'{d}      accessModes: ["ReadWriteOnce"]\n'
        f"{d}      resources:\n"
        f"{d}        requests:\n"
        f"{d}          storage: {size}\n"
        f"{d}- name: cache\n"
        f"{d}  volumeClaimTemplate:\n"
        f"{d}    metadata:\n"
        f"{d}      name: gocache\n"
        f"{d}    spec:\n"
        f"{d}      accessModes:\n"
        f"{d}      {off}- ReadWriteOnce\n"
        f"{d}      resources:\n"
        f"{d}        requests:\n"
        f"{d}          storage: 2Gi\n"
        f"{d}- name: docker-config\n"
        f"{d}  secret:\n"
        f"{d}    secretName: registry-creds\n"
    )


def people_run(n: int, rnd: random.Random) -> str:
    """package_run's file with what people put in theirs, each in some of the files: a
    license header (a blank line inside the head comment), a leading `---`, text in other
    scripts than ASCII, a folded scalar, an escape in double quotes, a URL in a flow mapping,
    a pod template in nested flow style, spaces at the end of a line, a comment at the end of
    the file, quoted keys, both sequence styles in one file, a plain scalar over two lines,
    a quoted one over two, a mapping indented by four in a file indented by two."""
    text = package_run(n, rnd)
    svc = f"svc-{n:04d}"
    d = "  " if n % 3 == 0 else "    "  # package_run's dash column of spec's sequences
    if n % 5 == 4:
        text += f"# end of nightly-{svc}\n"
    if n % 3 == 1:
        text = text.replace(f"    description: 'nightly build of {svc}'", f"    description: 'nächtlicher Build von {svc} — Team ✓'")
    if n % 4 == 3:
        text = text.replace(
            f"{d}- name: repo-url\n{d}  value: https://git.example.com/shop/{svc}.git\n",
            f"{d}- {{name: repo-url, value: https://git.example.com:8443/shop/{svc}.git}}\n",
        )
    extra = ""
    if n % 4 == 2:
        extra += f"{d}- name: notes\n{d}  value: >-\n{d}    built every night\n{d}    from main\n"
    if n % 6 == 5:
        extra += f'{d}- name: message\n{d}  value: "nightly\\tbuild of \\"{svc}\\""\n'
    if n % 8 == 6:
        text = text.replace(
            "    serviceAccountName: ci-bot\n",
            "    serviceAccountName: ci-bot\n"
            "    podTemplate: {nodeSelector: {disktype: ssd}, tolerations: [{key: ci, operator: Exists, effect: NoSchedule}]}\n",
            1,
        )
    if extra:
        text = text.replace("  taskRunTemplate:\n", extra.replace("{d}", d) + "  taskRunTemplate:\n", 1)
    if n % 3 == 2 and n % 2:  # both sequence styles in one file: params at the key's column
        a = text.index("  params:\n") + len("  params:\n")
        b = text.index("  taskRunTemplate:\n")
        text = text[:a] + "".join(x[2:] for x in text[a:b].splitlines(keepends=True)) + text[b:]
    if n % 10 == 8:  # a description wrapped by hand over two lines, plain
        text = text.replace(
            f"    description: 'nightly build of {svc}'\n",
            f"    description: nightly build of {svc}, by the release bot\n      every night, then signed\n",
        )
    if n % 12 == 9:  # a quoted description wrapped by hand over two lines
        text = text.replace(
            f"    description: 'nightly build of {svc}'\n",
            f'    description: "nightly build of {svc}, by the release bot\n      every night, then \\"signed\\""\n',
        )
    if n % 7 == 3:
        text = text.replace("  namespace: ci\n", "  namespace: ci  \n", 1)
    if n % 13 == 6:  # a block pasted with four spaces where the file has two: taskRunTemplate's
        a = text.index("  taskRunTemplate:\n") + len("  taskRunTemplate:\n")
        b = a
        while text.startswith("   ", b):
            b = text.index("\n", b) + 1
        text = text[:a] + "".join("  " + x for x in text[a:b].splitlines(keepends=True)) + text[b:]
    if n % 9 == 2:  # label keys quoted, as Helm charts and JSON converters write them
        text = text.replace("    app.kubernetes.io/", '    "app.kubernetes.io/').replace("/name:", '/name":').replace("/part-of:", '/part-of":')
    if n % 11 == 7:  # every key of the head quoted, and a claim's access modes
        for key in ("apiVersion", "kind", "metadata", "name", "namespace"):
            text = text.replace(f"\n{key}:", f'\n"{key}":', 1).replace(f"\n  {key}:", f"\n  '{key}':", 1)
        text = text.replace('accessModes: ["ReadWriteOnce"]', '"accessModes": ["ReadWriteOnce"]')
    if n % 5 == 0:
        text = f"# Copyright 2026 ACME Corp.\n# SPDX-License-Identifier: Apache-2.0\n\n{text}"
    if n % 2:
        text = "---\n" + text
    return text


def package(runs: int, seed: int = 1, people: bool = False) -> dict[str, str]:
    """A kpt package as {relative path: text}: a Kptfile naming the policy, the policy, the
    Pipeline every run uses, two Tasks, RBAC and a ConfigMap, and `runs` PipelineRun files
    under runs/ (one PipelineRun per file; `people`: as people_run writes them)."""
    rnd = random.Random(seed)
    files = {
        "Kptfile": KPTFILE,
        "coschedule-policy.yaml": PACKAGE_POLICY,
        "pipeline.yaml": PIPELINE,
        "tasks.yaml": TASKS,
        "rbac.yaml": RBAC,
    }
    for n in range(runs):
        files[f"runs/nightly-{n:05d}.yaml"] = (people_run if people else package_run)(n, rnd)
    return files


def write_package(files: dict[str, str], root: Path) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def read_package(root: Path) -> dict[str, str]:
    """A package on disk as {relative path: text} (the Kptfile and every YAML file, sorted)."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and (p.name == "Kptfile" or p.suffix in (".yaml", ".yml")):
            out[p.relative_to(root).as_posix()] = p.read_text()
    return out


def package_resource_list(files: dict[str, str], config: str = "coschedule-policy.yaml") -> str:
    """The package as kpt hands it to a function: one ResourceList, every document an item with
    kpt's path and index annotations (legacy and internal), `config`'s document as the
    functionConfig."""
    out = ["apiVersion: config.kubernetes.io/v1\n", "kind: ResourceList\n", "items:\n"]
    for rel, text in files.items():
        for idx, doc in enumerate(d for d in re.split(r"(?m)^---\n", text) if d.strip()):
            ann = [
                f"config.kubernetes.io/index: '{idx}'",
                f"config.kubernetes.io/path: '{rel}'",
                f"internal.config.kubernetes.io/index: '{idx}'",
                f"internal.config.kubernetes.io/path: '{rel}'",
            ]
            out.append(_as_entry(_with_annotations(doc, ann)))
    out.append("functionConfig:\n")
    body = files[config]
    out.extend("  " + line if line.strip() else line for line in body.splitlines(keepends=True))
    return "".join(out)


def _with_annotations(doc: str, ann: list[str]) -> str:
    """`doc` with `ann` added to metadata.annotations (metadata's keys at two spaces)."""
    lines = doc.splitlines(keepends=True)
    at = next(i for i, x in enumerate(lines) if x in ("metadata:\n", '"metadata":\n', "'metadata':\n")) + 1
    end = at
    while end < len(lines) and (lines[end].startswith("  ") or not lines[end].strip()):
        if lines[end] == "  annotations:\n":
            lines[end + 1 : end + 1] = [f"    {a}\n" for a in ann]
            return "".join(lines)
        end += 1
    lines[end:end] = ["  annotations:\n", *(f"    {a}\n" for a in ann)]
    return "".join(lines)


def _as_entry(doc: str) -> str:
    """A document as one `- ` entry of `items`, as kpt (kyaml) writes it: the head comment
    after the dash (`- # comment`), the keys below it."""
    lines = doc.splitlines(keepends=True)
    head = [x for x in lines if x.startswith("#")]
    body = [x for x in lines if not x.startswith("#") and x.strip()]
    if head:
        out = ["- " + head[0]] + ["  " + x for x in head[1:] + body]
    else:
        out = ["- " + body[0]] + ["  " + x for x in body[1:]]
    return "".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--targets", type=float, default=0.05, help="share of Tekton/Shipwright runs (0..1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pipelinerun-only", action="store_true", help="one PipelineRun, nothing else")
    ap.add_argument("--no-config", action="store_true", help="leave out the functionConfig")
    a = ap.parse_args(argv)
    if a.pipelinerun_only:
        sys.stdout.write(generate(1, 1.0, a.seed, not a.no_config))
    else:
        sys.stdout.write(generate(a.items, a.targets, a.seed, not a.no_config))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
