"""What the function does to one item: the context a transform sees (`context`), the
scheduling policy merged into pod templates (`scheduling`), Shipwright (`shipwright`), Tekton
(in `tekton/`), and Tekton's feature-flags checked (`prerequisite`). One plain function per
kind: object and policy in, edits and results out. Imports policy, io and core, and of yaml
only yaml/document (the Document interface and its document-level functions)."""
