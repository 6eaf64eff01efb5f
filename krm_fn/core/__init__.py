"""The bottom layer: errors, the immutable records, the result list, the annotation keys,
plain data (a copy; a value's type in a message's words), and the names and labels of the
contract (Tekton's and this function's). Imports nothing of krm_fn."""
