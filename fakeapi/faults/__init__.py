"""Scriptable faults: the failures real clusters throw at controllers, as data the request path
and the watch caches consult."""
