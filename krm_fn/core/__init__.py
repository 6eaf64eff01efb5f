"""The bottom layer: errors, the immutable records, the result list, the annotation keys,
and the names and labels of the contract (Tekton's and this function's). Imports nothing
of krm_fn."""
