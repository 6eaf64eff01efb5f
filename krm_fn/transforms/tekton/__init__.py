"""Tekton: its vocabulary (`names`: the assistant's and claims' names, labels and
pod-affinity terms), the run handlers (`handlers`), a run's pod templates and the edits of
their affinity (`run`), its workspace bindings and claims (`bindings`), which workspaces a
pipeline task uses (`workspaces`), the checks before anything is generated (`checks`), the
placeholder StatefulSet (`assistant`), the run-keyed strategy (`runkeyed`), and
TriggerTemplates (`triggers`)."""
