"""The registry engine (kube's ``pkg/registry`` generic store): REST storage per resource over the
store and its watch cache, the strategies run on create/update/delete, list/watch routing between
cache and store, subresources, and the set of served resources."""
