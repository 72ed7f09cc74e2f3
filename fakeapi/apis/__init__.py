"""The built-in API types, kube's ``pkg/apis``: the catalogue of what Kubernetes 1.35 serves, and
per group the rules of its types (kube's ``pkg/apis/<group>/v1/defaults.go`` and
``pkg/apis/<group>/validation``)."""
