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
import sys
from collections.abc import Sequence

TARGET_KINDS = ("PipelineRun", "TaskRun", "BuildRun")
PLAIN_KINDS = ("Deployment", "Service", "ConfigMap")


def _ann(path: str, index: int) -> str:
    return (
        "    annotations:\n"
        f"      config.kubernetes.io/index: '{index}'\n"
        f"      config.kubernetes.io/path: '{path}'\n"
        f"      internal.config.kubernetes.io/index: '{index}'\n"
        f"      internal.config.kubernetes.io/path: '{path}'\n"
    )


def deployment(n: int, ns: str, path: str, idx: int, rnd: random.Random) -> str:
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


def service(n: int, ns: str, path: str, idx: int, rnd: random.Random) -> str:
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


def configmap(n: int, ns: str, path: str, idx: int, rnd: random.Random) -> str:
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


def pipelinerun(n: int, ns: str, path: str, idx: int, rnd: random.Random) -> str:
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


def taskrun(n: int, ns: str, path: str, idx: int, rnd: random.Random) -> str:
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


def buildrun(n: int, ns: str, path: str, idx: int, rnd: random.Random) -> str:
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


def generate(items: int, targets: float = 0.05, seed: int = 1, config: bool = True) -> str:
    """A ResourceList of `items` objects, a `targets` share of them Tekton/Shipwright runs,
    with a CoschedulePolicy functionConfig unless `config` is false."""
    rnd = random.Random(seed)
    n_targets = round(items * targets)
    kinds = [TARGET_KINDS[i % len(TARGET_KINDS)] for i in range(n_targets)]
    kinds += [PLAIN_KINDS[i % len(PLAIN_KINDS)] for i in range(items - n_targets)]
    rnd.shuffle(kinds)
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
