"""The server's part of a CRD write: apiextensions-apiserver's
``registry/customresourcedefinition/strategy.go`` ``PrepareForCreate`` / ``PrepareForUpdate``:
the status is the server's, its ``storedVersions`` gaining each storage version, and
``generation`` counts the changes of the spec.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .crd_defaults import storage_version


def _add_stored_version(crd: dict[str, Any]) -> None:
    storage = storage_version(crd["spec"])
    stored = crd["status"].setdefault("storedVersions", [])
    if storage is not None and storage not in stored:
        stored.append(storage)


def prepare_crd_create(crd: dict[str, Any]) -> None:
    """``PrepareForCreate``: the status is the server's, starting from the storage version."""
    crd["status"] = {"storedVersions": []}
    crd.setdefault("metadata", {})["generation"] = 1
    _add_stored_version(crd)


def prepare_crd_update(crd: dict[str, Any], old: Mapping[str, Any]) -> None:
    """``PrepareForUpdate``: the old status kept, the new storage version added to
    ``storedVersions``, ``generation`` bumped when the spec changed."""
    crd["status"] = copy.deepcopy(old.get("status") or {})
    old_generation = (old.get("metadata") or {}).get("generation", 1)
    changed = crd.get("spec") != old.get("spec")
    crd.setdefault("metadata", {})["generation"] = old_generation + 1 if changed else old_generation
    _add_stored_version(crd)
