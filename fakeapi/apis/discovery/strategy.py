"""What writes do to EndpointSlices beyond the generic registry
(``pkg/registry/discovery/endpointslice/strategy.go``)."""

from __future__ import annotations

from ..core.validation_common import validate_node_name
from ..fields import Json, items
from ..strategies import first_generation, set_generation

#: ``corev1.LabelHostname``: where deprecatedTopology kept a node's name.
HOSTNAME_LABEL = "kubernetes.io/hostname"


def _node_names_of_topology(obj: Json | None) -> set[str]:
    names = set()
    for endpoint in items(obj, "endpoints"):
        name = (endpoint.get("deprecatedTopology") or {}).get(HOSTNAME_LABEL)
        if name is not None:
            names.add(name)
    return names


def _drop_topology_on_v1(new: Json, old: Json | None) -> None:
    """``dropTopologyOnV1``: v1 writes drop ``deprecatedTopology`` (unless the endpoints did not
    change), keeping a node name the stored slice already had as ``nodeName``."""
    if old is not None and (new.get("endpoints") or []) == (old.get("endpoints") or []):
        return
    known = _node_names_of_topology(old)
    for endpoint in items(new, "endpoints"):
        name = (endpoint.get("deprecatedTopology") or {}).get(HOSTNAME_LABEL)
        if endpoint.get("nodeName") is None and name in known and not validate_node_name(name, False):
            endpoint["nodeName"] = name
        endpoint.pop("deprecatedTopology", None)


def prepare_for_create(obj: Json) -> None:
    first_generation(obj)
    _drop_topology_on_v1(obj, None)


def prepare_for_update(new: Json, old: Json) -> None:
    """Generation moves with anything but metadata, and with the labels (the Service the slice
    belongs to is a label)."""
    changed = any(new.get(key) != old.get(key) for key in (new.keys() | old.keys()) - {"metadata"})
    set_generation(new, old, changed or (new["metadata"].get("labels") or {}) != (old["metadata"].get("labels") or {}))
    _drop_topology_on_v1(new, old)
