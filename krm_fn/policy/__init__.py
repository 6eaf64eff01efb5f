"""The policy: the functionConfig (CoschedulePolicy or ConfigMap), its schema, and the
Kubernetes and SHIP-0039 validation and hardening rules it is checked by. Imports yaml and
core."""
