"""What updates do to EndpointSlices beyond the generic registry
(``pkg/registry/discovery/endpointslice/strategy.go``)."""

from __future__ import annotations

from ..fields import Json
from ..strategies import set_generation


def prepare_endpoint_slice_for_update(new: Json, old: Json) -> None:
    """Generation moves with anything but metadata, and with the labels (the Service the slice
    belongs to is a label)."""
    changed = any(new.get(key) != old.get(key) for key in (new.keys() | old.keys()) - {"metadata"})
    set_generation(new, old, changed or (new["metadata"].get("labels") or {}) != (old["metadata"].get("labels") or {}))
