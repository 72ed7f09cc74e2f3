"""The write path of ``ResourceStore``: kube's generic ``Store.Create`` and ``Store.Update``
(``registry/generic/registry/store.go``) around ``rest.BeforeCreate`` and ``rest.BeforeUpdate``
(``rest/create.go``, ``rest/update.go``). Writes go to the store as the same txn shapes
kube-apiserver sends etcd (create: ``mod == 0`` then put; update: ``mod == <read revision>``).
Every object is encoded once, at write time, with its resourceVersion already in it: the store is
driven from a single thread, so the revision a write will get is known before the write (and
checked after it). Those bytes are what GET, LIST and every watcher serve.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

from ..admission import WebhookTarget
from ..admission.webhook import request as webhook_request
from ..apis.catalogue import ETCD_PREFIX
from ..apis.rules import KindRules
from ..machinery import gostruct, metadata, warning
from ..machinery.golang import go_quote
from ..machinery.field_manager import check_name
from ..machinery.jsonvalue import json_copy, kept_json
from ..machinery.path import validate_path_segment_name
from ..machinery.validation import validate_object_meta, validate_object_meta_update
from ..machinery.managed_fields import equal_but_managed_fields_times
from ..machinery.status import (
    OPTIMISTIC_LOCK_MESSAGE,
    Cause,
    FieldError,
    already_exists,
    conflict,
    forbidden,
    generate_name_conflict,
    invalid,
    not_found,
    unclassified_error,
)
from ..runtime import can_wait
from ..store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    KeyValue,
    PutRequest,
    TxnRequest,
    TxnResponse,
)
from ..store.errors import ErrRequestTooLarge
from . import request_cost, scale, strategy, versioner

T = TypeVar("T")

#: The rules of the version a write was sent in, when it is not the storage version's: kube's
#: strategies read the request's version from the request context (events.k8s.io Events are
#: validated more strictly than core ones). Set by ``ConvertingStore`` around its writes.
request_rules: contextvars.ContextVar[KindRules | None] = contextvars.ContextVar("request_rules", default=None)

#: kube retries a generated name this many times before giving up.
_NAME_GENERATION_ATTEMPTS = 8

Json = dict[str, Any]

#: Whether a write etcd refuses as too large is retried without managedFields (False in apply).
retry_without_managed_fields: contextvars.ContextVar[bool] = contextvars.ContextVar("managed_fields_retry", default=True)


def check_namespace_accepts(namespace_phase: Callable[[str], str | None], group: str, resource: str, namespace: str,
                            name: str) -> None:
    """NamespaceLifecycle admission of a create of ``resource`` in ``namespace``: the namespace
    exists and is not terminating."""
    phase = namespace_phase(namespace)
    if phase is None:
        raise not_found("", "namespaces", namespace)
    if phase == "Terminating":
        raise forbidden(group, resource, name,
                        f"unable to create new content in namespace {namespace} because it is being terminated",
                        (Cause(reason="NamespaceTerminating", message=f"namespace {namespace} is being terminated",
                               field="metadata.namespace"),))


def precondition_failed(key: str, field: str, wanted: Any, actual: Any) -> str:
    """A failed precondition of a storage update as it reads (``storage.Preconditions.Check``,
    ``NewInvalidObjError``); ``field`` is ``UID`` or ``ResourceVersion``."""
    return (f"StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: "
            f"Precondition failed: {field} in precondition: {wanted}, {field} in object meta: {actual}")


def note_noop_write() -> None:
    """Count the request as a write that stored nothing (``request_cost``)."""
    cost = request_cost.current.get()
    if cost is not None:
        cost.noop_write = True


class Superseded(Exception):
    """A write's compare-and-swap failed: another write came between its read and its write
    (while it waited, for a webhook or for its store). kube's storage starts such a write again
    from the object the other write stored (``GuaranteedUpdate``, ``conditionalDelete``), never
    answering a 409 for it: ``until_current`` does."""


def until_current(attempt: Callable[[], T]) -> T:
    """``attempt()``, made again while it is ``Superseded`` (each attempt reads the object)."""
    while True:
        with contextlib.suppress(Superseded):
            return attempt()


class StoreWrites:
    """Create and update (PUT, and the rewrites PATCH, /scale and controllers make) of
    ``ResourceStore``, whose state they use (``store``, ``rules``, ``cacher``, ...), with the hooks
    resources of more semantics override (CRDs, custom resources)."""

    def _encode(self, obj: Json, rev: int | None) -> bytes:
        """The object's bytes at resourceVersion ``rev`` (None: without one, as an object never
        stored); metadata in Go's order (the strategy set fields after decoding put them in place)."""
        meta = obj["metadata"]
        meta["resourceVersion"] = None if rev is None else str(rev)
        obj["metadata"] = metadata.go_object_meta(meta)
        return kept_json(obj)

    def create(self, namespace: str | None, body: Any, dry_run: bool = False, *, manager: str = "",
               go_decoded: bool = False) -> bytes:
        """POST: a new object; ``manager`` (the request's field manager) owns the fields it set;
        ``go_decoded``: the body is already as its Go type prints it (``_decode_body``)."""
        resource_type = self.resource_type
        rules = self.rules
        obj = self._decode_body(body, go_decoded)
        meta = obj["metadata"]
        ns = namespace if resource_type.namespaced else None
        if resource_type.namespaced:
            metadata.check_namespace(meta, namespace)
            self._check_namespace_accepts(namespace or "", meta.get("name") or "")
        generate = not meta.get("name") and meta.get("generateName")
        if not meta.get("name") and not generate:
            raise invalid(resource_type.group, resource_type.kind, "", [
                ("metadata.name", "FieldValueRequired", "Required value: name or generateName is required")
            ])
        # kube's order: the field manager records the request's object, mutating admission
        # changes it (fields nobody owns), then the strategy (reset fields are owned by nobody).
        if manager:
            obj = self._field_manager(None).update(None, obj, manager, now=metadata.now_rfc3339())
        target = self.webhook_target("CREATE", ns, meta.get("name") or "")
        if self._admission is not None:
            self._admission.admit(resource_type.group, resource_type.kind, obj, None, None, target)
        meta = obj["metadata"]
        metadata.prepare_create(meta, ns)
        strategy.prepare_for_create(resource_type, obj)
        if rules.prepare_for_create is not None:
            rules.prepare_for_create(obj)
        obj = metadata.ordered(obj, resource_type.kind, self.api_version)
        self._admit_create(obj)
        for _ in range(_NAME_GENERATION_ATTEMPTS if generate else 1):
            meta = obj["metadata"]  # _encode puts a new dict there
            if generate:
                meta["name"] = metadata.generate_name(meta["generateName"])
            self._validate_create(obj)
            if self._admission is not None:
                self._admission.validate(resource_type.group, resource_type.kind, obj, None, None, dry_run, target)
            key = self.key(ns, meta["name"]).encode()
            if dry_run:  # never stored, so it has no resourceVersion (kube's dry-run create)
                if self.store.get(key) is None:
                    return self._encode(obj, None)
                continue
            resp, raw = self._write(obj, lambda encoded, key=key: TxnRequest(  # type: ignore[misc]
                compare=(Compare(key, CompareTarget.MOD, CompareResult.EQUAL, 0),),
                success=(PutRequest(key, encoded, lease=self._lease()),),
            ))
            if resp.succeeded:
                self._committed(None, obj)
                return raw
        if generate:
            raise generate_name_conflict(resource_type.group, resource_type.plural, meta["name"])
        raise already_exists(resource_type.group, resource_type.plural, meta["name"])

    def webhook_target(self, operation: str, namespace: str | None, name: str) -> WebhookTarget | None:
        """The write as admission webhooks are told of it; None for a write no request asked for
        (a controller's inside the server), which webhooks do not see."""
        if webhook_request.current.get() is None:
            return None
        return WebhookTarget(operation, self.resource_type.version, self.resource_type.plural, namespace or "", name,
                             self._decode_body)

    def scale_target(self, target: WebhookTarget | None) -> WebhookTarget | None:
        """The ``/scale`` write of ``target``: an autoscaling/v1 Scale written through this
        resource's ``scale`` subresource (kube's ScaleREST admits Scales, not the object)."""
        if target is None:
            return None
        return dataclasses.replace(target, decode=scale.decode, resource_group=self.resource_type.group,
                                   kind_version="v1")

    def check_resource_version(self, name: str, wanted: str | None, current: int) -> None:
        """kube's store's update of an object whose resourceVersion (``wanted``, if any) is
        not the stored one's (``current``): its 409; one that is no number, the storage
        versioner's ParseUint error, which kube passes on unclassified."""
        if wanted and not (wanted.isascii() and wanted.isdigit()):
            raise unclassified_error(f"strconv.ParseUint: parsing {go_quote(wanted)}: invalid syntax")
        if wanted and wanted != str(current):
            raise conflict(self.resource_type.group, self.resource_type.plural, name, OPTIMISTIC_LOCK_MESSAGE)

    def admit_scale(self, new_scale: Json, current: Json, target: WebhookTarget | None) -> None:
        """The mutating admission of a ``/scale`` write: the new Scale and the current one."""
        if self._admission is not None:
            self._admission.admit(scale.GROUP, "Scale", new_scale, current, "scale", target)

    def _validation_rules(self) -> KindRules:
        """The rules that validate this write: the request version's, if it has its own."""
        served = request_rules.get()
        return served if served is not None and served.validate is not None else self.rules

    def _decode_body(self, body: Any, go_decoded: bool = False) -> Json:
        """A request body (or a patch's result) as kube decodes it: of this kind and version,
        through the Go type (``gostruct``: unknown fields dropped, zero values and Go's field
        order; ``go_decoded``: it went through it already, or is a protobuf body, which
        ``fakeapi.http.protobuf`` prints as that decoding would leave it), then defaulted."""
        obj = metadata.check_type(body, self.resource_type.kind, self.api_version, custom=self.resource_type.custom)
        if self.resource_type.custom:
            # kube coerces a custom resource's metadata through ObjectMeta, whose empty
            # collections are omitted (``labels: {}`` is no field the request set)
            metadata.drop_empty(obj["metadata"])
            self._default_custom(obj)
            return obj
        if not go_decoded:
            obj = gostruct.decode_body(obj, self.api_version, self.resource_type.kind)
        if self.rules.default is not None:
            self.rules.default(obj)
        return obj

    def _validate_create(self, obj: Json) -> None:
        """The kind's validation of a new object (kube's ``BeforeCreate``), its warnings recorded;
        kinds without rules get the generic name check."""
        rules, meta = self._validation_rules(), obj["metadata"]
        if rules.validate is None:
            metadata.validate_name(self.resource_type.group, self.resource_type.kind, meta["name"])
            return
        errors = rules.validate(obj)
        if errors:
            raise invalid(self.resource_type.group, self.resource_type.kind, meta["name"], errors)
        # BeforeCreate's common validation, after the kind's passed: every name is a path segment
        errors = validate_object_meta(meta, self.resource_type.namespaced, validate_path_segment_name)
        if errors:
            raise invalid(self.resource_type.group, self.resource_type.kind, meta["name"], errors)
        self._warn_on_create(obj)

    def _warn_on_create(self, obj: Json) -> None:
        """The strategy's ``WarningsOnCreate`` of a new object that passed validation, recorded."""
        warnings_on_create = self._validation_rules().warnings_on_create
        if warnings_on_create is not None:
            for text in warnings_on_create(obj):
                warning.add(text)

    def _warn_on_update(self, new: Json, old: Json, subresource: str | None) -> None:
        """The strategy's ``WarningsOnUpdate`` of an update that passed validation, recorded
        (the subresources' strategies have none)."""
        warnings_on_update = self._validation_rules().warnings_on_update
        if warnings_on_update is not None and subresource is None:
            for text in warnings_on_update(new, old):
                warning.add(text)

    def _update_validation(self, subresource: str | None) -> Callable[[Json, Json], list[FieldError]] | None:
        """The strategy's ``ValidateUpdate`` of the endpoint (None: the kind has none here)."""
        own_strategy = self.subresource_strategies.get(subresource) if subresource else None
        if own_strategy is not None:
            return own_strategy[1]
        rules = self._validation_rules()
        return rules.validate_status_update if subresource == "status" else rules.validate_update

    def _validate_update(self, new: Json, old: Json, subresource: str | None) -> None:
        """The validation of an update (kube's ``BeforeUpdate``), its warnings recorded: the common
        fields' (every kind's), then the strategy's (which repeats some of it), in one 422."""
        new_meta, old_meta = new["metadata"], old["metadata"]
        errors = validate_object_meta(new_meta, self.resource_type.namespaced, validate_path_segment_name)
        errors += validate_object_meta_update(new_meta, old_meta)
        validate = self._update_validation(subresource)
        if validate is not None:
            errors += validate(new, old)
        if errors:
            raise invalid(self.resource_type.group, self.resource_type.kind, new["metadata"]["name"], errors)
        self._warn_on_update(new, old, subresource)

    def _check_namespace_accepts(self, namespace: str, name: str) -> None:
        check_namespace_accepts(self._namespace_phase, self.resource_type.group, self.resource_type.plural, namespace,
                                name)

    def update(
        self, namespace: str | None, name: str, body: Any, *, subresource: str | None = None, dry_run: bool = False,
        manager: str = "", go_decoded: bool = False,
    ) -> bytes:
        """PUT of the object or its ``status``: the body replaces the stored object (as the
        strategy allows); a resourceVersion in it must be the stored one. ``go_decoded``: the
        body is already as its Go type prints it (``_decode_body``)."""
        kv, old = self._current(namespace, name)
        body_meta = body.get("metadata") if isinstance(body, dict) else None
        uid = body_meta.get("uid") if isinstance(body_meta, dict) else None
        if uid and uid != old["metadata"].get("uid"):
            # A uid in the body is the update's precondition (``defaultUpdatedObjectInfo``), which
            # the storage checks on the stored object before anything else of the update; a dry
            # run's storage (``DryRunnableStorage``) names the key without the etcd prefix.
            key = self.key(namespace, name)
            raise conflict(self.resource_type.group, self.resource_type.plural, name, precondition_failed(
                key.removeprefix(ETCD_PREFIX) if dry_run else key, "UID", uid, old["metadata"].get("uid")))
        if (not self.rules.allow_unconditional_update and isinstance(body, dict)
                and not (body.get("metadata") or {}).get("resourceVersion")):
            # kube's generic store names the resource, not the kind, and the version as a number.
            raise invalid(self.resource_type.group, self.resource_type.plural, name, [(
                "metadata.resourceVersion", "FieldValueInvalid", "Invalid value: 0: must be specified for an update")])
        # A body already as its Go type prints it is not copied by its decoding, so an attempt
        # changes it: an update that may start again (one that waits, for a webhook or for its
        # store: ``Superseded``) starts each attempt from a copy of the body as it was sent.
        sent = json_copy(body) if go_decoded and can_wait() else body
        while True:
            prepared = self._prepare_update(name, body, old, kv, subresource, manager, dry_run, go_decoded)
            with contextlib.suppress(Superseded):
                return self._commit_update(kv, old, prepared, dry_run)
            kv, old = self._current(namespace, name)
            body = json_copy(sent)

    def rewrite(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], *,
        subresource: str | None = None, dry_run: bool = False, manager: str = "", go_decoded: bool = False,
        scaled: scale.Scales | None = None,
    ) -> bytes:
        """Update the stored object by ``change(copy of it)`` (PATCH, /scale, controllers).
        Reading and writing happen in one loop step unless the write waits (for a webhook, or
        for a store in another process); then a write that came between starts it again from
        the object that write stored (``Superseded``), admission included.
        ``go_decoded``: ``change`` answers the object already decoded into its Go type (a
        patch's result, decoded for the patch handler's errors), which is not decoded again.
        ``scaled``: a ``/scale`` write, which ``change`` admitted by its mutating admission; its
        validating admission sees the Scales ``scaled`` makes of the object to store and the
        stored one."""
        def attempt() -> bytes:
            kv, old = self._current(namespace, name)
            changed = change(orjson.loads(self._read(kv.value, kv.mod_revision)))
            prepared = self._prepare_update(name, changed, old, kv, subresource, manager, dry_run, go_decoded, scaled)
            return self._commit_update(kv, old, prepared, dry_run)
        return until_current(attempt)

    def guaranteed_update(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], *, dry_run: bool = False,
    ) -> bytes:
        """kube's ``Storage.GuaranteedUpdate`` with a plain update function, as subresource
        storages use it (``pods/binding``): ``change`` gets a copy of the stored object and returns
        it changed (or raises), and that is written as it is — no strategy, validation, admission
        or managedFields, no generation bump."""
        def attempt() -> bytes:
            kv, old = self._current(namespace, name)
            return self._commit_update(kv, old, change(orjson.loads(self._read(kv.value, kv.mod_revision))), dry_run)
        return until_current(attempt)

    def _prepare_update(
        self, name: str, body: Any, old: Json, kv: KeyValue, subresource: str | None, manager: str = "",
        dry_run: bool = False, go_decoded: bool = False, scaled: scale.Scales | None = None,
    ) -> Json:
        resource_type = self.resource_type
        rules = self.rules
        obj = self._decode_body(body, go_decoded)
        meta = obj["metadata"]
        ns = old["metadata"].get("namespace") if resource_type.namespaced else None
        check_name(obj, name, ns or "")
        if resource_type.namespaced:
            metadata.check_namespace(meta, ns)
        self.check_resource_version(name, meta.get("resourceVersion"), kv.mod_revision)
        old_meta = old.get("metadata", {})
        # As on create: the field manager sees the request's object, then mutating admission
        # (webhooks get the body as sent: no uid or creationTimestamp a PUT left out), then
        # kube's BeforeUpdate takes the system fields from the stored object and the strategy
        # drops what the endpoint may not change (kube's update and patch handlers).
        if manager:
            obj = self._field_manager(subresource).update(old, obj, manager, now=metadata.now_rfc3339())
        target = self.webhook_target("UPDATE", ns, name)
        if self._admission is not None and scaled is None:
            self._admission.admit(resource_type.group, resource_type.kind, obj, old, subresource, target)
        meta = obj["metadata"]
        metadata.prepare_update(meta, old_meta, ns)
        own_strategy = self.subresource_strategies.get(subresource) if subresource else None
        if own_strategy is not None:
            obj = own_strategy[0](metadata.ordered(obj, resource_type.kind, self.api_version), old)
        else:
            obj = strategy.prepare_for_update(
                resource_type, metadata.ordered(obj, resource_type.kind, self.api_version), old, subresource)
        prepare = rules.prepare_for_status_update if subresource == "status" else rules.prepare_for_update
        if prepare is not None and subresource in (None, "status"):
            prepare(obj, old)
        strategy.check_finalizers(resource_type, name, obj["metadata"], old_meta)
        self._admit_update(obj, old, subresource)
        obj["metadata"]["resourceVersion"] = old_meta.get("resourceVersion")
        self._validate_update(obj, old, subresource)
        if self._admission is not None and scaled is not None:
            self._admission.validate(scale.GROUP, "Scale", *scaled(obj, old), "scale", dry_run, self.scale_target(target))
        elif self._admission is not None:
            self._admission.validate(resource_type.group, resource_type.kind, obj, old, subresource, dry_run, target)
        return obj

    def _commit_update(self, kv: KeyValue, old: Json, new: Json, dry_run: bool) -> bytes:
        """Write ``new`` over ``kv`` unless nothing changed; a deleting object whose last
        finalizer went is deleted by the same write (``ShouldDeleteDuringUpdate``).
        As kube's GuaranteedUpdate, a write that would store the same object again writes
        nothing (same resourceVersion, no event), and so does one that changes nothing but
        managedFields timestamps (``IgnoreManagedFieldsTimestampsTransformer``): decided against
        the object read, however long admission took, as kube decides it. Another write that
        came first (the compare-and-swap failed: the update waited, for a webhook or for its
        store, between its read and its write) raises ``Superseded``: the caller starts again
        from the object that write stored."""
        if self._unchanged(kv, old, new) and not self._first_update_writes(kv, old):
            note_noop_write()
            return self._read(kv.value, kv.mod_revision)
        if dry_run:
            return self._unversioned(kv, new)
        finished = self._finished(new, old)
        resp, raw = self._write(new, lambda encoded: TxnRequest(
            compare=(Compare(kv.key, CompareTarget.MOD, CompareResult.EQUAL, kv.mod_revision),),
            success=(DeleteRangeRequest(kv.key) if finished else PutRequest(kv.key, encoded, lease=self._lease()),),
        ))
        if not resp.succeeded:
            raise Superseded()
        self._committed(old, None if finished else new)
        return self._unversioned(kv, new) if finished else raw

    def _unversioned(self, kv: KeyValue, new: Json) -> bytes:
        """The answer of an update whose object no storage versioner saw, so that it keeps the
        resourceVersion of the stored object it was made from (``kv``'s): kube's dry run
        (``DryRunnableStorage.GuaranteedUpdate`` answers what the update made of the stored
        object, writing nothing), and an update that deleted the object (``deleteWithoutFinalizers``
        answers the update's object, not what the delete removed)."""
        return self._encode(new, kv.mod_revision)

    def _unchanged(self, kv: KeyValue, old: Json, new: Json) -> bool:
        """Whether ``new`` stores what ``kv`` holds: kube compares the encoding with etcd's bytes,
        so an object read otherwise than stored (a custom resource's defaults from storage) is
        written back with what the read added."""
        read = self._read(kv.value, kv.mod_revision)
        stored = old if read is kv.value else orjson.loads(kv.value)
        return new == stored or equal_but_managed_fields_times(new, stored)

    def _write(self, obj: Json, txn: Callable[[bytes], TxnRequest]) -> tuple[TxnResponse, bytes]:
        """The txn ``txn(encoding)`` that writes ``obj``, and its encoding as of the revision the
        txn got (another API process sharing the store may have written first: ``versioner``).
        etcd refusing it as larger than ``--max-request-bytes`` is retried once without
        managedFields, as kube's create, update and patch handlers retry it (not apply's: see
        ``apply``); past that it is kube's 500 (etcd's error, which kube-apiserver passes on
        unclassified)."""
        rev = self.store.known_revision + 1  # the revision the write is expected to get (``versioner``)
        raw = self._encode(obj, rev)
        try:
            resp = self.store.txn(txn(raw))
        except ErrRequestTooLarge as err:
            meta = obj["metadata"]
            if not (meta.get("managedFields") and retry_without_managed_fields.get()):
                raise unclassified_error(str(err)) from None
            del meta["managedFields"]
            raw = self._encode(obj, rev)
            try:
                resp = self.store.txn(txn(raw))
            except ErrRequestTooLarge as err:
                raise unclassified_error(str(err)) from None
        if resp.succeeded:
            meta = obj["metadata"]
            if resp.header_revision != rev:
                meta["resourceVersion"] = str(resp.header_revision)
                raw = versioner.with_resource_version(raw, resp.header_revision)
            self._last_written = (raw, obj)
            self.cacher.prepare_selectors(self.key(meta.get("namespace") or None, meta["name"]),
                                          resp.header_revision, *self._selectors_of(obj))
        return resp, raw

    def stored_object(self, raw: bytes) -> Json | None:
        """The object the last write stored when ``raw`` (a write's answer) is its encoding, to
        read only; None for another answer (a no-op's, or the object of an update that deleted
        it: ``_unversioned``), which need not be the object its resourceVersion names."""
        last = self._last_written
        return last[1] if last is not None and last[0] is raw else None

    def _first_update_writes(self, kv: KeyValue, old: Json) -> bool:
        """A no-op update writes all the same when kube's stored bytes of the created object
        (etcd version 1) lack what its reads default (``KindRules.first_update_writes``)."""
        writes = self.rules.first_update_writes
        return kv.version == 1 and writes is not None and writes(old)

    # Hooks for resources with more semantics (CRDs, custom resources); called in the write's
    # loop step, so what they read is the state the write sees.

    def _default_custom(self, obj: Json) -> None:
        """What decoding does to a custom resource (pruning, its schema's defaults)."""

    def _admit_create(self, obj: Json) -> None:
        """Default, validate or refuse a new object (after the strategy)."""

    def _admit_update(self, new: Json, old: Json, subresource: str | None) -> None:
        """Default, validate or refuse an update (after the strategy)."""

    def _committed(self, old: Json | None, new: Json | None) -> None:
        """A write landed: ``old`` -> ``new`` (None: absent before / deleted)."""

    def _lease(self) -> int:
        """The store lease a write attaches (0: none), renewed by every write as in kube."""
        return 0 if self._ttl is None else self._ttl.leases.lease_for(self._ttl.seconds)

    def _finished(self, new: Json, old: Json) -> bool:
        """kube's ``ShouldDeleteDuringUpdate``: the update leaves no finalizers on an object
        that was already deleting without a grace period still running (a pod's kubelet ends
        that one with its own delete)."""
        old_meta = old.get("metadata") or {}
        return (not new["metadata"].get("finalizers") and bool(old_meta.get("deletionTimestamp"))
                and not old_meta.get("deletionGracePeriodSeconds"))
