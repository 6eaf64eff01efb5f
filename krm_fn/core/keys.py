"""Annotation and label keys the function reads and writes (kpt's, kustomize's, Tekton's and its
own) that more than one layer needs. Tekton's assistant vocabulary (names, labels, terms) is in
transforms/tekton/names."""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Mapping

# every generated object carries `<Kind>/<name>` of its run (SPEC §4)
OWNER_ANNOTATION = "krm-coschedule.dev/owner"

# where kpt keeps an item's file and its place in it; the legacy pair is mirrored when used
PATH_KEY = "internal.config.kubernetes.io/path"
INDEX_KEY = "internal.config.kubernetes.io/index"
LEGACY_PATH_KEY = "config.kubernetes.io/path"
LEGACY_INDEX_KEY = "config.kubernetes.io/index"
PATH_ANNOTATIONS = (PATH_KEY, LEGACY_PATH_KEY)
INDEX_ANNOTATIONS = (INDEX_KEY, LEGACY_INDEX_KEY)
LOCATION_KEYS = (PATH_KEY, INDEX_KEY, LEGACY_PATH_KEY, LEGACY_INDEX_KEY)

# the Tekton pod label that identifies the run: the run's UID from Tekton v0.63.0 on, its
# name before (`createChildResourceLabels` in Tekton's pipelinerun reconciler); the policy
# picks one by tektonVersion
RUN_UID_KEY = "tekton.dev/pipelineRunUID"
RUN_NAME_KEY = "tekton.dev/pipelineRun"

# an item marked so is never touched (kpt's Kptfile and function configs)
LOCAL_CONFIG = "config.kubernetes.io/local-config"


def is_local_config(annotations: Mapping[str, str]) -> bool:
    return str(annotations.get(LOCAL_CONFIG, "")).lower() == "true"
