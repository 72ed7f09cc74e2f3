"""authorization.k8s.io: the access reviews are never stored, so nothing registers rules for the
generic registry; their REST storage (``fakeapi.registry.access_reviews``) calls
``validation`` itself, as kube's does."""
