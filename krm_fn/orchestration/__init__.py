"""Orchestration: the one `process` every way of running goes through (config -> which
items -> which transform -> results and output texts), the generated objects reconciled with
earlier copies and placed (`generated`), and the runs a package has twice or whose generated
names collide (`collisions`). Imports transforms, policy, io and core."""
