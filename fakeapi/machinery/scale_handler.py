"""managedFields between an object and its ``/scale`` subresource, as apimachinery's
``managedfields.ScaleHandler`` (``pkg/util/managedfields/scalehandler.go``) moves them.

A write of ``/scale`` is field-managed as an ``autoscaling/v1`` Scale: its field manager sees the
object's managers of the replicas field as owners of the Scale's ``spec.replicas``
(``to_subresource``), and what it records is carried back to the object (``to_parent``). Each
kind names, per group version its managedFields may carry, where its replicas are
(``ReplicasPaths``: ``spec.replicas`` for the built-ins, a CRD version's ``specReplicasPath``,
the empty path for a CRD version without a scale subresource, upstream's nil path).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .fieldpath import FieldSet, Path, PathElement, VersionedSet
from .managed_fields import Managed, decode_managed_fields, encode_managed_fields

#: A group version (``apps/v1``) to the replicas field of the kind in it.
ReplicasPaths = Mapping[str, Path]

SCALE_API_VERSION = "autoscaling/v1"
_REPLICAS_IN_SCALE: Path = (PathElement.field("spec"), PathElement.field("replicas"))


def replicas_path(json_path: str) -> Path:
    """The field path of a replicas JSON path (``.spec.replicas``), as kube splits a CRD's
    ``specReplicasPath``."""
    return tuple(PathElement.field(name) for name in json_path.lstrip(".").split("."))


def to_subresource(parent_entries: Sequence[Mapping[str, Any]] | None, paths: ReplicasPaths) -> list[dict[str, Any]] | None:
    """``ScaleHandler.ToSubresource``: the object's managers of its replicas, each as the owner
    of the Scale's ``spec.replicas`` at autoscaling/v1 (applied or not, its time kept); the
    others left out. Raises ``ManagedFieldsError`` on managedFields kube cannot decode."""
    parent = decode_managed_fields(parent_entries)
    scale = Managed()
    for identifier, versioned in parent.fields.items():
        path = paths.get(versioned.api_version)
        if path and versioned.set.has(path):
            scale.fields[identifier] = VersionedSet(FieldSet.of(_REPLICAS_IN_SCALE), SCALE_API_VERSION, versioned.applied)
            scale.times[identifier] = parent.times.get(identifier)
    return encode_managed_fields(scale)


def to_parent(parent_entries: Sequence[Mapping[str, Any]] | None, scale_entries: Sequence[Mapping[str, Any]] | None,
              group_version: str, paths: ReplicasPaths) -> list[dict[str, Any]] | None:
    """``ScaleHandler.ToParent``: the object's managedFields after a write of its Scale whose
    managers are ``scale_entries``. An object's manager of the replicas that no longer manages
    the Scale's loses them (its entry goes when nothing is left); one that still does keeps
    its entry as it was; a new manager of the Scale's replicas owns the object's, at
    ``group_version`` (the request's), with the time the object's entry of that manager had
    (none for a new one, as upstream). Entries at a group version ``paths`` does not know are
    dropped."""
    parent = decode_managed_fields(parent_entries)
    scale_fields = dict(decode_managed_fields(scale_entries).fields)
    result = Managed()
    for identifier, versioned in parent.fields.items():
        if versioned.api_version not in paths:
            continue
        path = paths[versioned.api_version]
        if not versioned.set.has(path):  # the empty path included
            kept: VersionedSet | None = versioned
        elif identifier in scale_fields:
            kept = versioned
            del scale_fields[identifier]
        else:  # the Scale's write took the replicas from this manager
            rest = versioned.set.difference(FieldSet.of(path))
            kept = None if rest.empty else VersionedSet(rest, versioned.api_version, versioned.applied)
        if kept is not None:
            result.fields[identifier] = kept
            result.times[identifier] = parent.times.get(identifier)
    own_path = paths[group_version]
    for identifier, versioned in scale_fields.items():
        if not versioned.set.has(_REPLICAS_IN_SCALE):
            continue
        result.fields[identifier] = VersionedSet(FieldSet.of(own_path), group_version, versioned.applied)
        result.times[identifier] = parent.times.get(identifier)
    return encode_managed_fields(result)
