"""CustomResourceDefinitions (kube's ``apiextensions-apiserver``): CRD validation and the types
they define, and structural schemas (pruning, defaulting, validation of custom resources)."""
