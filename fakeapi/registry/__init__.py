"""Kubernetes semantics over the store: the resource catalogue, Status errors, selectors,
continue tokens, and REST storage per resource."""
