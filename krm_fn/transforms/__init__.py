"""What the function does to items: the context of one run of it, the scheduling policy,
Shipwright, Tekton (in tekton/), and process, which dispatches every item to them and
adds the generated objects. Imports policy, io and core, and of yaml only yaml/document
(the Document interface and its document-level functions)."""
