"""Tekton: the affinity assistant's placeholder and names, the run and its workspaces,
the checks, run-keyed affinity, and TriggerTemplates."""
