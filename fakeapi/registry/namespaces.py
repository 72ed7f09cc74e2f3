"""Namespaces' storage (``pkg/registry/core/namespace/storage/storage.go``).

A namespace is held by ``spec.finalizers`` (``kubernetes`` on every new one) as well as by
metadata finalizers. The first DELETE marks it: deletionTimestamp and phase ``Terminating``;
the namespace controller empties it and then removes ``kubernetes`` through ``/finalize``, and
that write deletes the namespace (``ShouldDeleteNamespaceDuringUpdate``). A repeated DELETE
answers the namespace unchanged.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..machinery import metadata
from ..machinery.delete_options import DeleteOptions
from ..machinery.status import forbidden
from .rest import Json, ResourceStore
from .writes import until_current

TERMINATING = "Terminating"
#: The namespaces kube-apiserver's NamespaceLifecycle admission never lets a request delete.
IMMORTAL = frozenset(("default", "kube-system", "kube-public"))


class NamespaceStore(ResourceStore):
    def _finished(self, new: Json, old: Json) -> bool:
        return super()._finished(new, old) and not (new.get("spec") or {}).get("finalizers")

    def phase(self, name: str) -> str | None:
        """The namespace's phase, None if there is no such namespace: kube's NamespaceLifecycle
        reads its informer, and the store when the namespace is not there (one created a moment
        ago)."""
        namespace = self.cached_or_stored(None, name)
        if namespace is None:
            return None
        return (namespace.get("status") or {}).get("phase", "Active")

    def delete(
        self, namespace: str | None, name: str, options: DeleteOptions = DeleteOptions(), *,
        gc_finalizers: bool = False,
    ) -> tuple[bytes, bool]:
        if name in IMMORTAL:  # NamespaceLifecycle admission, before the storage reads anything
            raise forbidden("", "namespaces", name, "this namespace may not be deleted")

        def attempt() -> tuple[bytes, bool]:
            kv, old = self._current(None, name)
            if not (old.get("spec") or {}).get("finalizers"):
                return super(NamespaceStore, self).delete(None, name, options, gc_finalizers=gc_finalizers)
            self._check_preconditions(name, options, old.get("metadata", {}), kv)
            if old["metadata"].get("deletionTimestamp"):
                return kv.value, False
            marked = orjson.loads(kv.value)  # server-owned fields: written as they are, no strategy
            marked["metadata"]["deletionTimestamp"] = metadata.now_rfc3339()
            marked.setdefault("status", {})["phase"] = TERMINATING
            return self._commit_update(kv, old, marked, options.dry_run), False
        return until_current(attempt)

    def finalize(self, name: str, body: Any, dry_run: bool = False) -> bytes:
        """PUT ``/finalize``: only ``spec.finalizers`` is taken from the body."""
        finalizers = ((body or {}).get("spec") or {}).get("finalizers") if isinstance(body, dict) else None

        def set_finalizers(ns: Json) -> Json:
            spec = ns.setdefault("spec", {})
            if finalizers:
                spec["finalizers"] = list(finalizers)
            else:
                spec.pop("finalizers", None)
            return ns

        return self.rewrite(None, name, set_finalizers, subresource="finalize", dry_run=dry_run)
