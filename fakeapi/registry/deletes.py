"""The delete path of ``ResourceStore``: kube's generic ``Store.Delete`` and
``Store.DeleteCollection`` (``registry/generic/registry/store.go``) around ``rest.BeforeDelete``
(``rest/delete.go``): preconditions, graceful deletion, finalizers (the garbage collector's
among them), then the txn etcd gets (``mod == <read revision>``, delete).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

import orjson

from ..admission import WebhookTarget
from ..cacher import CachedObject
from ..machinery import metadata, warning
from ..machinery.delete_options import FOREGROUND, ORPHAN, DeleteOptions
from ..machinery.list_options import ListOptions
from ..machinery.selectors import SelectableKind
from ..machinery.status import StatusError, conflict
from ..store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    KeyValue,
    RangeRequest,
    TxnRequest,
)
from . import versioner
from .views import ResponseView
from .writes import Superseded, note_noop_write, until_current

Json = dict[str, Any]

#: The finalizer a propagation policy puts on an owner for the garbage collector to act on
#: (``Background`` needs none: the collector deletes dependents after the owner is gone).
_GC_FINALIZERS = {FOREGROUND: "foregroundDeletion", ORPHAN: "orphan"}
_GRACE_PENDING = object()  # BeforeDelete's gracefulPending
#: Whether the deletes being made are a delete-collection's items: kube admits each with the
#: collection request's attributes (``AdmissionToValidateObjectDeleteFunc`` of the handler's
#: static attributes), which name no object, so a webhook's review has no ``name`` and a
#: policy's refusal names "Unknown". A context variable, as a store's ``delete`` may be its own
#: (a CRD's marks it terminating) and the collection calls whichever it is.
_collection_items: contextvars.ContextVar[bool] = contextvars.ContextVar("collection_items", default=False)


def is_status(body: bytes) -> bool:
    """Whether a DELETE answered with a Status rather than the object."""
    return body.startswith(b'{"kind":"Status"')


class StoreDeletes:
    """Delete and delete-collection of ``ResourceStore``, whose state and write path they use."""

    def delete(
        self, namespace: str | None, name: str, options: DeleteOptions = DeleteOptions(), *,
        gc_finalizers: bool = False,
    ) -> tuple[bytes, bool]:
        """kube's ``Store.Delete``: returns the response body (the object, or a Status: see
        ``is_status``) and whether the object is gone.
        A graceful delete (pods: the kind's ``graceful_delete_period``) first writes the object
        marked deleting: deletionTimestamp now + its period, deletionGracePeriodSeconds, generation
        + 1. It stays while the period runs (a kubelet ends it with a delete of period 0) or
        finalizers hold it; with period 0 and no finalizers a second write deletes it, so watchers
        see MODIFIED then DELETED, as from kube.
        Another kind's object with finalizers (or whose propagation policy needs the garbage
        collector's, when ``gc_finalizers``) is marked deleting with period 0 and stays until its
        finalizers go."""
        target = self.webhook_target("DELETE", namespace, "" if _collection_items.get() else name)
        return until_current(lambda: self._delete_attempt(namespace, name, options, gc_finalizers, target))

    def _delete_attempt(self, namespace: str | None, name: str, options: DeleteOptions, gc_finalizers: bool,
                        target: WebhookTarget | None) -> tuple[bytes, bool]:
        """One attempt of ``delete`` from the object as stored now (``Superseded`` when another
        write comes between its read and its write)."""
        kv, old = self._current(namespace, name)
        old_meta = old.get("metadata", {})
        self._check_preconditions(name, options, old_meta, kv)
        mark = self._graceful_mark(old, options.grace_period_seconds)
        if mark is _GRACE_PENDING:
            note_noop_write()
            return self._read(kv.value, kv.mod_revision), False  # a graceful deletion runs; only a shorter period changes it
        if target is not None and self._admission is not None:
            # Webhooks see the object deleted as the old one (kube's storage admits a delete
            # once it has read it), mutating ones first: a patch of theirs has nothing to change.
            self._admission.admit(self.resource_type.group, self.resource_type.kind, None, old, None, target)
            self._admission.validate(self.resource_type.group, self.resource_type.kind, None, old, None,
                                     options.dry_run, target)
        finalizers = list(old_meta.get("finalizers") or ())
        policy = self._propagation_policy(options)
        gc_finalizer = _GC_FINALIZERS.get(policy or "") if gc_finalizers else None
        if gc_finalizer is not None and gc_finalizer not in finalizers:
            finalizers.append(gc_finalizer)
        if mark is not None or finalizers:
            if mark is None and old_meta.get("deletionTimestamp") and finalizers == list(old_meta.get("finalizers") or ()):
                note_noop_write()
                return self._read(kv.value, kv.mod_revision), False  # already deleting: unchanged
            marked = orjson.loads(self._read(kv.value, kv.mod_revision))
            meta = marked["metadata"]
            if finalizers:
                meta["finalizers"] = finalizers
            if mark is not None:
                meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"], first = mark
                if first and meta.get("generation"):  # BeforeDelete bumps a tracked generation once
                    meta["generation"] += 1
            elif not meta.get("deletionTimestamp"):  # markAsDeleting
                meta["deletionTimestamp"] = metadata.now_rfc3339()
                meta["deletionGracePeriodSeconds"] = 0
                if meta.get("generation"):
                    meta["generation"] += 1
            raw = self._commit_update(kv, old, marked, options.dry_run)
            if finalizers or mark is None or mark[1] > 0 or options.dry_run:
                return raw, mark is not None and not finalizers and mark[1] == 0
            kv, old = self._current(namespace, name)  # graceful with period 0: deleted now
        return self._delete_now(kv, old, name, options)

    def _graceful_mark(self, old: Json, requested: int | None) -> tuple[str, int, bool] | None | object:
        """kube's ``rest.BeforeDelete`` for a kind with a graceful strategy: the deletion
        (timestamp, grace period, whether it is the first mark) a delete writes, None when the
        object is to be deleted without a graceful mark, ``_GRACE_PENDING`` when a graceful
        deletion already runs and the request does not shorten it."""
        period_of = self.rules.graceful_delete_period
        if period_of is None:
            return None
        if requested is not None and requested < 0:
            requested = 1  # negative periods are 1s on the delete path
        meta = old.get("metadata") or {}
        deleting_since = meta.get("deletionTimestamp")
        if deleting_since is None:
            period = period_of(old, requested)
            return metadata.rfc3339_in(period), period, True
        current = meta.get("deletionGracePeriodSeconds")
        if not current:
            return None  # marked with period 0 earlier (the delete did not follow): delete now
        if requested is None or requested >= current:
            return _GRACE_PENDING
        # Only a shorter period: the timestamp moves back by the difference, never into the past
        # (a graceful request whose period has all run out keeps 1s for its kubelet).
        timestamp, period = metadata.rfc3339_in(requested - current, deleting_since), requested
        now = metadata.now_rfc3339()
        if timestamp < now:
            timestamp, period = now, (1 if requested else 0)
        return timestamp, period, False

    def _delete_now(self, kv: KeyValue, old: Json, name: str, options: DeleteOptions) -> tuple[bytes, bool]:
        resource_type = self.resource_type
        old_meta = old.get("metadata", {})
        if not options.dry_run:
            resp = self.store.txn(TxnRequest(
                compare=(Compare(kv.key, CompareTarget.MOD, CompareResult.EQUAL, kv.mod_revision),),
                success=(DeleteRangeRequest(kv.key),),
            ))
            if not resp.succeeded:
                raise Superseded()
            self._committed(old, None)
            if resource_type.returns_deleted_object:
                # etcd3's store decodes the deleted object at the delete's revision
                return versioner.with_resource_version(kv.value, resp.header_revision), True
        if resource_type.returns_deleted_object:
            return kv.value, True
        return orjson.dumps({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": {"name": name, **({"group": resource_type.group} if resource_type.group else {}),
                        "kind": resource_type.plural, "uid": old_meta.get("uid")},
        }), True

    def _propagation_policy(self, options: DeleteOptions) -> str | None:
        """The request's propagation policy, or the kind's default (with its warning)."""
        if options.propagation_policy is not None:
            return options.propagation_policy
        rules = self.rules
        if rules.default_propagation_warning is not None:
            warning.add(rules.default_propagation_warning)
        return rules.default_propagation_policy

    def _check_preconditions(self, name: str, options: DeleteOptions, old_meta: Json, kv: KeyValue) -> None:
        """``rest.BeforeDelete``'s early check of the preconditions (a Conflict on the kind)."""
        resource_type = self.resource_type
        uid = options.precondition_uid
        if uid is not None and uid != old_meta.get("uid"):
            raise conflict(resource_type.group, resource_type.kind, name, (
                f"the UID in the precondition ({uid}) does not match the UID in record ({old_meta.get('uid')}). "
                "The object might have been deleted and then recreated"))
        rv = options.precondition_resource_version
        if rv is not None and rv != str(kv.mod_revision):
            raise conflict(resource_type.group, resource_type.kind, name, (
                f"the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record "
                f"({kv.mod_revision}). The object might have been modified"))

    def delete_collection(
        self, namespace: str | None, opts: ListOptions, options: DeleteOptions = DeleteOptions(), *,
        gc_finalizers: bool = False, view: ResponseView | None = None, field_labels: SelectableKind | None = None,
        selected: Callable[[CachedObject], bool] | None = None,
    ) -> bytes:
        """Delete every object matching the list options (or ``selected``, as ``list`` takes
        it), one delete each (as kube does); the response is the list the deletes were made from
        (kube's ``Store.DeleteCollection`` answers the list it read, not the deleted objects):
        the objects as they were, at the list's revision."""
        matches = selected or self._filter(opts, field_labels)[0]
        start, end = self.key_range(namespace)
        listed = self.store.range(RangeRequest(start.encode(), end.encode()))
        items = []
        token = _collection_items.set(True)
        try:
            for kv in listed.kvs:
                obj = self._decode(kv.key.decode(), kv.value, kv.mod_revision)
                if matches is not None and not matches(obj):
                    continue
                items.append(self._list_item(obj, view))
                try:
                    self.delete(obj.namespace or None, obj.name, options, gc_finalizers=gc_finalizers)
                except StatusError as err:
                    if err.code != 404:  # deleted meanwhile (while a webhook was asked): kube ignores it
                        raise
        finally:
            _collection_items.reset(token)
        return self._list_body(items, listed.header_revision, None, None, view)
