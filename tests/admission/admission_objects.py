"""The admission plugins alone, without a registry: what a plugin reads (``Admission.lookup``,
``Admission.list``) comes from a list of objects the test stores, and what it writes
(``Admission.update_status``) is applied to them and kept in ``status_writes``."""

from __future__ import annotations

import copy
from typing import Any

from fakeapi.admission import Admission

Json = dict[str, Any]

#: The admission of plugins that read no other object.
NOTHING_STORED = Admission(lambda group, kind, namespace, name: None)


class Objects:
    """The stored objects admission sees, and its ``Admission`` over them."""

    def __init__(self) -> None:
        self.stored: list[Json] = []
        #: (kind, namespace, name, the object after the write), in order.
        self.status_writes: list[tuple[str, str | None, str, Json]] = []
        self.admission = Admission(self.lookup, self.list, self.update_status)

    def add(self, *objects: Json) -> None:
        self.stored.extend(objects)

    def list(self, group: str, kind: str, namespace: str | None) -> list[Json]:
        return [copy.deepcopy(obj) for obj in self.stored
                if str(obj["apiVersion"]).rpartition("/")[0] == group and obj["kind"] == kind
                and (namespace is None or obj["metadata"].get("namespace") == namespace)]

    def lookup(self, group: str, kind: str, namespace: str | None, name: str) -> Json | None:
        return next((obj for obj in self.list(group, kind, namespace) if obj["metadata"]["name"] == name), None)

    def update_status(self, group: str, kind: str, namespace: str | None, name: str, change: Any) -> None:
        current = self.lookup(group, kind, namespace, name)
        assert current is not None, f"a status write to {kind} {namespace}/{name}, which is not stored"
        written = change(current)
        self.stored = [written if (obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"]) ==
                       (kind, namespace, name) else obj for obj in self.stored]
        self.status_writes.append((kind, namespace, name, written))


def new(api_version: str, kind: str, name: str, namespace: str | None = "ns", **fields: Any) -> Json:
    """An object as a request carries it (``metadata`` given in ``fields`` is merged)."""
    meta: Json = {"name": name, **({"namespace": namespace} if namespace else {}), **fields.pop("metadata", {})}
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, **fields}


def pod(name: str, namespace: str = "ns", metadata: Json | None = None, **spec: Any) -> Json:
    """A pod of one container ``app`` unless ``containers`` are given."""
    spec.setdefault("containers", [{"name": "app", "image": "nginx"}])
    return new("v1", "Pod", name, namespace, metadata=metadata or {}, spec=spec)
