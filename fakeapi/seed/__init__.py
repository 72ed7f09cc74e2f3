"""Synthetic clusters: a spec, a deterministic plan of objects, and the ways to write it."""
