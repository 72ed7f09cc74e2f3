"""REST storage of one resource: kube's generic registry ``Store`` over our store and cacher.

Writes go to the store as the same txn shapes kube-apiserver sends etcd (create: ``mod == 0``
then put; update and delete: ``mod == <read revision>``). Every object is encoded once, at write
time, with its resourceVersion already in it: the store is driven from a single thread, so the
revision a write will get is known before the write (and checked after it). Those bytes are what
GET, LIST and every watcher serve. Reads follow kube-apiserver 1.32's routing between the watch
cache and etcd (``cacher/delegator.go``): see ``list``.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson

from ..admission import Admission
from ..apiextensions.structural import StructuralSchema
from ..apis.catalogue import ETCD_PREFIX, ResourceType
from ..apis.rules import NO_RULES, KindRules, rules_for
from ..cacher import CachedObject, Cacher, CacheWatcher, TooOldResourceVersion
from ..machinery import continue_token, gostruct, metadata, serializer, warning
from ..machinery.golang import go_quote
from ..machinery import patch as patching
from ..machinery.field_manager import FieldManager, check_name
from ..machinery.delete_options import FOREGROUND, ORPHAN, DeleteOptions
from ..machinery.field_validation import (
    FieldValidation,
    object_strict_errors,
    strict_decoding_message,
    warning_header,
)
from ..machinery.goyaml import GoYAMLError, yaml_to_json
from ..machinery.jsonvalue import kept_json, stored_metadata
from ..machinery.list_options import EXACT, NOT_OLDER_THAN, ListOptions, parse_resource_version
from ..machinery.path import validate_path_segment_name
from ..machinery.validation import validate_object_meta, validate_object_meta_update
from ..machinery.managed_fields import equal_but_managed_fields_times
from ..machinery.schema import Schema, kind_schema
from ..machinery.selectors import (
    FieldSelector,
    LabelSelector,
    SelectableKind,
    parse_field_selector,
    parse_label_selector,
    selectable_fields,
    selects_metadata_only,
)
from ..machinery.status import (
    OPTIMISTIC_LOCK_MESSAGE,
    Cause,
    FieldError,
    StatusError,
    already_exists,
    bad_request,
    conflict,
    forbidden,
    generate_name_conflict,
    invalid,
    not_found,
    resource_expired,
    too_large_resource_version,
    unclassified_error,
)
from ..store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    ErrCompacted,
    ErrFutureRev,
    KeyValue,
    PutRequest,
    RangeRequest,
    Store,
    TxnRequest,
    TxnResponse,
)
from ..store.errors import ErrRequestTooLarge
from . import request_cost, scale, strategy, versioner
from .lease_manager import LeaseManager
from .views import ResponseView

#: The rules of the version a write was sent in, when it is not the storage version's: kube's
#: strategies read the request's version from the request context (events.k8s.io Events are
#: validated more strictly than core ones). Set by ``ConvertingStore`` around its writes.
request_rules: contextvars.ContextVar[KindRules | None] = contextvars.ContextVar("request_rules", default=None)

#: kube retries a generated name this many times before giving up.
_NAME_GENERATION_ATTEMPTS = 8
#: ``cached_objects`` keeps the reads of at most this many namespaces (all let go when full).
_LISTED_NAMESPACES = 1024

Json = dict[str, Any]

#: The finalizer a propagation policy puts on an owner for the garbage collector to act on
#: (``Background`` needs none: the collector deletes dependents after the owner is gone).
_GC_FINALIZERS = {FOREGROUND: "foregroundDeletion", ORPHAN: "orphan"}
_GRACE_PENDING = object()  # BeforeDelete's gracefulPending


@dataclass(frozen=True, slots=True)
class LeaseTTL:
    """Objects of a resource live ``seconds`` after their last write, on leases from ``leases``."""

    seconds: int
    leases: LeaseManager


@dataclass(slots=True)
class WatchStart:
    """A watch ready to stream, or the error to send in-stream as its only event."""

    watcher: CacheWatcher | None
    error: StatusError | None = None


class FieldManagedWrites:
    """PATCH and server-side apply over a store's ``create``/``rewrite``, with managedFields
    kept by one field manager per endpoint of the served version (``api_version``, ``kind``):
    shared by the storage version's ``ResourceStore`` and the other served versions'
    ``ConvertingStore``, whose patches apply to the object in their own version."""

    resource_type: ResourceType
    api_version: str
    kind: str
    schema: Schema | None
    #: A custom resource's schema for field tracking (None: kube's deduced types).
    custom_schema: Schema | None = None
    #: A custom resource's structural schema, which its decoding prunes bodies by (None: a built-in kind).
    structural: StructuralSchema | None = None
    _field_managers: dict[str | None, FieldManager]

    def exists(self, namespace: str | None, name: str) -> bool:
        raise NotImplementedError

    def create(self, namespace: str | None, body: Any, dry_run: bool = False, *, manager: str = "") -> bytes:
        raise NotImplementedError

    def rewrite(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], *,
        subresource: str | None = None, dry_run: bool = False, manager: str = "", go_decoded: bool = False,
    ) -> bytes:
        raise NotImplementedError

    def update_scale(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], dry_run: bool = False,
    ) -> bytes:
        raise NotImplementedError

    def admit_applied(self, applied: Json) -> None:
        """Normalise an apply configuration as decoding it would (custom resources: pruning)."""

    def _field_manager(self, subresource: str | None) -> FieldManager:
        """managedFields bookkeeping for the main resource or a subresource (kube keeps one field
        manager per endpoint)."""
        managers = self._field_managers
        fm = managers.get(subresource)
        if fm is None:
            schema = self.schema if not self.resource_type.custom else self.custom_schema
            fm = managers[subresource] = FieldManager(
                self.api_version, self.kind, schema, subresource=subresource or "",
                reset_fields=self._reset_fields(subresource),
                new_object=None if self.resource_type.custom else gostruct.zero_object(self.api_version, self.kind),
                typed_input=not self.resource_type.custom)
        return fm

    def _reset_fields(self, subresource: str | None) -> tuple[tuple[str, ...], ...]:
        """The strategy's ``GetResetFields`` for the endpoint (see ``KindRules``)."""
        rules = NO_RULES if self.resource_type.custom else rules_for(
            self.resource_type.group, self.resource_type.version, self.resource_type.kind)
        if subresource == "status":
            return rules.status_reset_fields if rules.status_reset_fields is not None else (("spec",),)
        if subresource == "scale":
            return ()
        if rules.reset_fields is not None:
            return rules.reset_fields
        return (("status",),) if "status" in self.resource_type.subresources else ()

    def patch(
        self, namespace: str | None, name: str, patch_type: str, body: bytes, *,
        subresource: str | None = None, dry_run: bool = False, manager: str = "",
        validation: FieldValidation = FieldValidation.WARN,
    ) -> bytes:
        """PATCH of the object, its ``status`` or its ``scale``: the patch applies to the stored
        object (for ``/status`` too, so a JSON-patch ``test`` of any field works there), then the
        result is written like a PUT of it. Under ``validation`` Warn or Strict the patch is first
        unmarshalled strictly, and its unknown and repeated members, with the result's unknown
        fields, are warnings or (Strict) a 422, as kube's patch handler reports them."""
        resource_type = self.resource_type
        if subresource == "scale":
            scale_schema = kind_schema("autoscaling", "v1", "Scale")
            return self.update_scale(namespace, name, lambda current: patching.apply_patch(
                patch_type, current, body, scale_schema, group="autoscaling", kind="Scale", name=name), dry_run)
        strict = validation is not FieldValidation.IGNORE

        def patched(current: Json) -> Json:
            patch_errors = patching.strict_patch_errors(patch_type, body) if strict else []
            result = patching.apply_patch(patch_type, current, body, self.schema, group=resource_type.group,
                                          kind=resource_type.kind, name=name)
            if resource_type.custom:
                return result

            def undecodable(error: str) -> StatusError:
                # kube patches the object as its Go type encodes it, fields in struct order, which
                # the message shows where the patch left them: the stored object has its
                # defaulted fields last, so the shown result is the patch applied to that encoding
                shown = patching.apply_patch(patch_type, gostruct.decode(current, self.api_version, self.kind), body,
                                             self.schema, group=resource_type.group, kind=resource_type.kind, name=name)
                return patching.undecodable_result(patch_type, shown, body, error)

            try:  # decoded here, not in the write's decoding, for the patch handler's error
                if patch_type == patching.STRATEGIC_MERGE_PATCH:  # converted from the patched map
                    decoded = gostruct.from_unstructured(result, self.api_version, self.kind)
                else:  # read back as JSON, its kind and version first
                    serializer.check_patched_kind(result, group=resource_type.group, version=resource_type.version,
                                                  kind=resource_type.kind)
                    decoded = gostruct.decode(result, self.api_version, self.kind)
            except gostruct.GoDecodeError as err:
                raise undecodable(str(err)) from None
            if strict and self.schema is not None:
                errors = patch_errors + object_strict_errors(result, self.schema)
                if errors and validation is FieldValidation.STRICT:
                    raise undecodable(strict_decoding_message(errors))
                for error in errors:
                    warning.add_header(warning_header(error))
            return decoded

        return self.rewrite(namespace, name, patched, subresource=subresource, dry_run=dry_run, manager=manager,
                            go_decoded=True)

    def apply(
        self, namespace: str | None, name: str, body: bytes, *, manager: str, force: bool,
        subresource: str | None = None, dry_run: bool = False, validation: FieldValidation = FieldValidation.WARN,
    ) -> tuple[bytes, bool]:
        """Server-side apply (``application/apply-patch+yaml``): the applied configuration is
        merged into the stored object by field ownership, or creates it. Returns the object and
        whether it was created. The body is read as ``sigs.k8s.io/yaml.Unmarshal`` reads it into
        a map; repeated keys are warnings, or a 400 under ``Strict`` (``applyPatcher``)."""
        try:
            applied, repeated = yaml_to_json(body)
        except GoYAMLError as err:
            raise bad_request(f"error decoding YAML: error converting YAML to JSON: {err}") from None
        if applied is None:
            applied = {}
        if not isinstance(applied, dict):
            kind = "array" if isinstance(applied, list) else "string" if isinstance(applied, str) else \
                "bool" if isinstance(applied, bool) else "number"
            raise bad_request("error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                              f"{kind} into Go value of type map[string]interface {{}}")
        if repeated and validation is not FieldValidation.IGNORE:
            if validation is FieldValidation.STRICT:
                raise bad_request("error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  "
                                  + "\n  ".join(repeated))
            for text in repeated:
                warning.add_header(warning_header(text))
        self.admit_applied(applied)
        fm = self._field_manager(subresource)
        now = metadata.now_rfc3339()
        token = _retry_without_managed_fields.set(False)  # kube's apply handler does not retry
        try:
            if not self.exists(namespace, name):
                if subresource:
                    raise not_found(self.resource_type.group, self.resource_type.plural, name)
                created = fm.apply(None, applied, manager, force=force, now=now)
                check_name(created, name, namespace or "")
                return self.create(namespace, created, dry_run), True
            raw = self.rewrite(namespace, name, lambda current: fm.apply(current, applied, manager, force=force, now=now),
                               subresource=subresource, dry_run=dry_run)
            return raw, False
        finally:
            _retry_without_managed_fields.reset(token)


#: Whether a write etcd refuses as too large is retried without managedFields (False in apply).
_retry_without_managed_fields: contextvars.ContextVar[bool] = contextvars.ContextVar("managed_fields_retry", default=True)


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


def is_status(body: bytes) -> bool:
    """Whether a DELETE answered with a Status rather than the object."""
    return body.startswith(b'{"kind":"Status"')


def list_item(raw: bytes) -> bytes:
    """A stored built-in object as a LIST item: without ``kind`` and ``apiVersion``, which kube's
    lists of built-in kinds leave out (the items' ``TypeMeta`` is empty once decoded). Stored
    objects start with exactly those two members (``gostruct.decode`` puts them first), so this is
    one slice. Custom resources keep theirs (unstructured objects carry them)."""
    if not raw.startswith(b'{"kind":'):
        return raw
    kind_end = raw.index(b'",', 9)
    if not raw.startswith(b'"apiVersion":"', kind_end + 2):
        return raw
    return b"{" + raw[raw.index(b'",', kind_end + 16) + 2:]


def list_bytes(kind: str, api_version: str, list_meta: Json, items: list[bytes]) -> bytes:
    """A LIST body around already encoded items."""
    head = orjson.dumps({"kind": kind, "apiVersion": api_version, "metadata": list_meta})
    return head[:-1] + b',"items":[' + b",".join(items) + b"]}"


class ResourceStore(FieldManagedWrites):
    def __init__(
        self,
        resource_type: ResourceType,
        store: Store,
        cacher_config: Any,
        namespace_phase: Callable[[str], str | None],
        ttl: LeaseTTL | None = None,
        admission: Admission | None = None,
    ) -> None:
        self.resource_type = resource_type
        self.store = store
        #: The kind's defaulting, strategy and validation (built-in kinds; custom resources' stores set their own).
        self.rules: KindRules = NO_RULES if resource_type.custom else rules_for(
            resource_type.group, resource_type.version, resource_type.kind)
        self._admission = admission
        self.kind = resource_type.kind
        self.api_version = resource_type.group_version
        self.list_kind = resource_type.kind + "List"
        self.prefix = resource_type.storage_prefix  # e.g. "/registry/pods/"
        self._namespace_phase = namespace_phase  # None: no such namespace
        self._ttl = ttl  # objects expire this long after their last write (events)
        self.scale_paths = scale.BUILT_IN
        self._field_managers: dict[str | None, FieldManager] = {}
        #: ``cached_objects``' reads, by namespace: the cache's change count, the objects.
        self._listed: dict[str | None, tuple[int, list[Json]]] = {}
        #: Subresources whose updates have a strategy of their own: subresource -> (prepare,
        #: validate), each given the new and the stored object (pods' ephemeralcontainers, resize).
        self.subresource_strategies: dict[str, tuple[Callable[[Json, Json], Json],
                                                     Callable[[Json, Json], list[FieldError]]]] = {}
        self.cacher = Cacher(store, self.prefix, self._decode, cacher_config)
        #: ``_selectors``, bound once: every cached object holds it (a bound method each would
        #: be one more object per version for the collector to scan).
        self._decode_selectors = self._selectors
        #: Whether the kind's selectable fields are all in the metadata (``_selectors``).
        self._selects_metadata_only = selects_metadata_only(resource_type)
        #: The last write's stored bytes and the object they encode (``written``).
        self._last_written: tuple[bytes, Json] | None = None

    @property
    def storage(self) -> ResourceStore:
        """The store holding the objects: this one (a ``ConvertingStore`` serves another
        version of the objects of its storage version's store)."""
        return self

    # ----------------------------------------------------------------- keys

    def key(self, namespace: str | None, name: str) -> str:
        if self.resource_type.namespaced:
            return f"{self.prefix}{namespace}/{name}"
        return f"{self.prefix}{name}"

    def count(self, namespace: str | None = None) -> int:
        """How many objects are stored (in one namespace, or in all)."""
        start, end = self.key_range(namespace)
        return self.store.range(RangeRequest(start.encode(), end.encode(), count_only=True)).count

    def key_range(self, namespace: str | None) -> tuple[str, str]:
        """[start, end) of the keys of one namespace, or of the whole resource."""
        if namespace and self.resource_type.namespaced:
            start = f"{self.prefix}{namespace}/"
            return start, start[:-1] + "0"  # "0" is "/" + 1
        return self.prefix, self.prefix[:-1] + "0"

    def _decode(self, key: str, raw: bytes, rv: int) -> CachedObject:
        """The cached form of a stored object: namespace and name are read off its key (the
        registry stores every object under ``key(namespace, name)``); what selectors match is
        decoded from ``raw`` only when one asks."""
        path = key[len(self.prefix):]
        namespace, _, name = path.partition("/") if self.resource_type.namespaced else ("", "", path)
        return CachedObject(key, namespace, name, rv, raw, decode_selectors=self._decode_selectors)

    def _selectors(self, raw: bytes) -> tuple[Json, Json]:
        if self._selects_metadata_only and (meta := stored_metadata(raw)) is not None:
            return self._selectors_of({"metadata": meta})
        return self._selectors_of(orjson.loads(raw))

    def _selectors_of(self, obj: Json) -> tuple[Json, Json]:
        """What selectors match of ``obj``: its labels (a copy) and selectable fields."""
        return dict((obj.get("metadata") or {}).get("labels") or {}), selectable_fields(self.resource_type, obj)

    # ----------------------------------------------------------------- reads

    def get(self, namespace: str | None, name: str, view: ResponseView | None = None) -> bytes:
        key = self.key(namespace, name)
        kv = self.store.get(key.encode())
        if kv is None:
            raise not_found(self.resource_type.group, self.resource_type.plural, name)
        cost = request_cost.current.get()
        if cost is not None:  # a GET reads the store, as kube's does etcd for RV ""
            cost.from_store = True
            cost.returned = cost.examined = 1
        if view is None:
            return kv.value
        # The watch cache's copy of this version keeps its encodings: converted once per view.
        cached = self.cacher.cache.objects.get(key) if view.shared else None
        if cached is not None and cached.rv == kv.mod_revision:
            return view.body(cached.encoded(view))
        return view.body(view.encode(kv.value))

    def exists(self, namespace: str | None, name: str) -> bool:
        return self.store.get(self.key(namespace, name).encode()) is not None

    def cached_or_stored(self, namespace: str | None, name: str) -> Json | None:
        """An object as the watch cache has it, else as the store has it (None: in neither):
        kube's admission plugins read listers with a live lookup on a miss, so an object
        created a moment ago is found, and a hit costs no store round trip."""
        key = self.key(namespace, name)
        cached = self.cacher.cache.objects.get(key)
        if cached is not None:
            return orjson.loads(cached.raw)
        kv = self.store.get(key.encode())
        return None if kv is None else orjson.loads(kv.value)

    def cached_objects(self, namespace: str | None) -> list[Json]:
        """The watch cache's objects (in one namespace, or all): a lister's read. Decoded once
        per namespace until the cache changes (admission reads a pod's namespace's LimitRanges
        and the PriorityClasses at every pod create), so shared: never changed by the caller."""
        changes = self.cacher.cache.changes
        listed = self._listed.get(namespace)
        if listed is not None and listed[0] == changes:
            return listed[1]
        start, end = self.key_range(namespace)
        objects = [orjson.loads(o.raw) for o in self.cacher.snapshot(start, end)]
        if len(self._listed) >= _LISTED_NAMESPACES:
            self._listed.clear()
        self._listed[namespace] = (changes, objects)
        return objects

    def _current(self, namespace: str | None, name: str) -> tuple[KeyValue, Json]:
        kv = self.store.get(self.key(namespace, name).encode())
        if kv is None:
            raise not_found(self.resource_type.group, self.resource_type.plural, name)
        return kv, orjson.loads(kv.value)

    # ----------------------------------------------------------------- writes

    def _encode(self, obj: Json) -> tuple[bytes, int]:
        """The object's bytes at the revision the write is expected to get (``versioner``);
        metadata in Go's order (the strategy set fields after decoding put them in place)."""
        rev = self.store.known_revision + 1
        meta = obj["metadata"]
        meta["resourceVersion"] = str(rev)
        obj["metadata"] = metadata.go_object_meta(meta)
        return kept_json(obj), rev

    def create(self, namespace: str | None, body: Any, dry_run: bool = False, *, manager: str = "") -> bytes:
        """POST: a new object; ``manager`` (the request's field manager) owns the fields it set."""
        resource_type = self.resource_type
        rules = self.rules
        obj = self._decode_body(body)
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
        if self._admission is not None:
            self._admission.admit(resource_type.group, resource_type.kind, obj, None, None)
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
                self._admission.validate(resource_type.group, resource_type.kind, obj, None, None, dry_run)
            key = self.key(ns, meta["name"]).encode()
            if dry_run:  # never stored, so it has no resourceVersion (kube's dry-run create)
                if self.store.get(key) is None:
                    meta.pop("resourceVersion", None)
                    return orjson.dumps(obj)
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

    def _validation_rules(self) -> KindRules:
        """The rules that validate this write: the request version's, if it has its own."""
        served = request_rules.get()
        return served if served is not None and served.validate is not None else self.rules

    def _decode_body(self, body: Any, go_decoded: bool = False) -> Json:
        """A request body (or a patch's result) as kube decodes it: of this kind and version,
        through the Go type (``gostruct``: unknown fields dropped, zero values and Go's field
        order; ``go_decoded``: it went through it already), then defaulted."""
        obj = metadata.check_type(body, self.resource_type.kind, self.api_version, custom=self.resource_type.custom)
        if self.resource_type.custom:
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
        manager: str = "",
    ) -> bytes:
        """PUT of the object or its ``status``: the body replaces the stored object (as the
        strategy allows); a resourceVersion in it must be the stored one."""
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
        if (self.resource_type.custom and isinstance(body, dict)
                and not (body.get("metadata") or {}).get("resourceVersion")):
            # Custom resources do not allow unconditional updates (AllowUnconditionalUpdate).
            # kube's generic store names the resource, not the kind, and the version as a number.
            raise invalid(self.resource_type.group, self.resource_type.plural, name, [(
                "metadata.resourceVersion", "FieldValueInvalid", "Invalid value: 0: must be specified for an update")])
        return self._commit_update(kv, old, self._prepare_update(name, body, old, kv, subresource, manager, dry_run),
                                   dry_run)

    def rewrite(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], *,
        subresource: str | None = None, dry_run: bool = False, manager: str = "", go_decoded: bool = False,
    ) -> bytes:
        """Update the stored object by ``change(copy of it)`` (PATCH, /scale, controllers).
        Reading and writing happen in one loop step, so no other write can come between:
        the compare-and-swap can only fail on a stale resourceVersion the change put in.
        ``go_decoded``: ``change`` answers the object already decoded into its Go type (a
        patch's result, decoded for the patch handler's errors), which is not decoded again."""
        kv, old = self._current(namespace, name)
        changed = change(orjson.loads(kv.value))
        return self._commit_update(kv, old, self._prepare_update(name, changed, old, kv, subresource, manager, dry_run,
                                                                 go_decoded), dry_run)

    def guaranteed_update(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], *, dry_run: bool = False,
    ) -> bytes:
        """kube's ``Storage.GuaranteedUpdate`` with a plain update function, as subresource
        storages use it (``pods/binding``): ``change`` gets a copy of the stored object and returns
        it changed (or raises), and that is written as it is — no strategy, validation, admission
        or managedFields, no generation bump."""
        kv, old = self._current(namespace, name)
        return self._commit_update(kv, old, change(orjson.loads(kv.value)), dry_run)

    def stored_objects(self, namespace: str | None) -> list[Json]:
        """Every object of one namespace (or all), decoded, in key order: a storage's read of
        another resource (the eviction's disruption budgets)."""
        start, end = self.key_range(namespace)
        return [orjson.loads(kv.value) for kv in self.store.range(RangeRequest(start.encode(), end.encode())).kvs]

    def _prepare_update(
        self, name: str, body: Any, old: Json, kv: KeyValue, subresource: str | None, manager: str = "",
        dry_run: bool = False, go_decoded: bool = False,
    ) -> Json:
        resource_type = self.resource_type
        rules = self.rules
        obj = self._decode_body(body, go_decoded)
        meta = obj["metadata"]
        ns = old["metadata"].get("namespace") if resource_type.namespaced else None
        check_name(obj, name, ns or "")
        if resource_type.namespaced:
            metadata.check_namespace(meta, ns)
        wanted_rv = meta.get("resourceVersion")
        if wanted_rv and not (wanted_rv.isascii() and wanted_rv.isdigit()):
            # the storage versioner's ParseUint error, which kube passes on unclassified
            raise unclassified_error(f"strconv.ParseUint: parsing {go_quote(wanted_rv)}: invalid syntax")
        if wanted_rv and wanted_rv != str(kv.mod_revision):
            raise conflict(resource_type.group, resource_type.plural, name, OPTIMISTIC_LOCK_MESSAGE)
        old_meta = old.get("metadata", {})
        metadata.prepare_update(meta, old_meta, ns)
        # As on create: the field manager sees the request's object, before admission and the
        # strategy drop what the endpoint may not change (kube's update and patch handlers).
        if manager:
            obj = self._field_manager(subresource).update(old, obj, manager, now=metadata.now_rfc3339())
        if self._admission is not None:
            self._admission.admit(resource_type.group, resource_type.kind, obj, old, subresource)
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
        if self._admission is not None:
            self._admission.validate(resource_type.group, resource_type.kind, obj, old, subresource, dry_run)
        return obj

    #: A custom resource's ``additionalPrinterColumns`` (built-in kinds have printers).
    printer_columns: tuple[Json, ...] | None = None

    def _commit_update(self, kv: KeyValue, old: Json, new: Json, dry_run: bool) -> bytes:
        """Write ``new`` over ``kv`` unless nothing changed; a deleting object whose last
        finalizer went is deleted by the same write (``ShouldDeleteDuringUpdate``).
        As kube's GuaranteedUpdate, a write that would store the same object again writes
        nothing (same resourceVersion, no event), and so does one that changes nothing but
        managedFields timestamps (``IgnoreManagedFieldsTimestampsTransformer``)."""
        if (new == old or equal_but_managed_fields_times(new, old)) and not self._first_update_writes(kv, old):
            _note_noop_write()
            return kv.value
        if dry_run:
            return self._encode(new)[0]
        finished = self._finished(new, old)
        resp, raw = self._write(new, lambda encoded: TxnRequest(
            compare=(Compare(kv.key, CompareTarget.MOD, CompareResult.EQUAL, kv.mod_revision),),
            success=(DeleteRangeRequest(kv.key) if finished else PutRequest(kv.key, encoded, lease=self._lease()),),
        ))
        if not resp.succeeded:
            raise conflict(self.resource_type.group, self.resource_type.plural, new["metadata"]["name"],
                           OPTIMISTIC_LOCK_MESSAGE)
        self._committed(old, None if finished else new)
        return raw

    def _write(self, obj: Json, txn: Callable[[bytes], TxnRequest]) -> tuple[TxnResponse, bytes]:
        """The txn ``txn(encoding)`` that writes ``obj``, and its encoding as of the revision the
        txn got (another API process sharing the store may have written first: ``versioner``).
        etcd refusing it as larger than ``--max-request-bytes`` is retried once without
        managedFields, as kube's create, update and patch handlers retry it (not apply's: see
        ``apply``); past that it is kube's 500 (etcd's error, which kube-apiserver passes on
        unclassified)."""
        raw, rev = self._encode(obj)
        try:
            resp = self.store.txn(txn(raw))
        except ErrRequestTooLarge as err:
            meta = obj["metadata"]
            if not (meta.get("managedFields") and _retry_without_managed_fields.get()):
                raise unclassified_error(str(err)) from None
            del meta["managedFields"]
            raw, rev = self._encode(obj)
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

    def written(self, raw: bytes) -> Json:
        """The object ``raw`` (a write's answer) encodes, to read only: the write's own object
        when ``raw`` is what the last write stored (a response in another view need not decode
        what was encoded a moment ago), else decoded."""
        last = self._last_written
        if last is not None and last[0] is raw:
            return last[1]
        return orjson.loads(raw)

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
        kv, old = self._current(namespace, name)
        old_meta = old.get("metadata", {})
        self._check_preconditions(name, options, old_meta, kv)
        mark = self._graceful_mark(old, options.grace_period_seconds)
        if mark is _GRACE_PENDING:
            _note_noop_write()
            return kv.value, False  # a graceful deletion runs; only a shorter period changes it
        finalizers = list(old_meta.get("finalizers") or ())
        policy = self._propagation_policy(options)
        gc_finalizer = _GC_FINALIZERS.get(policy or "") if gc_finalizers else None
        if gc_finalizer is not None and gc_finalizer not in finalizers:
            finalizers.append(gc_finalizer)
        if mark is not None or finalizers:
            if mark is None and old_meta.get("deletionTimestamp") and finalizers == list(old_meta.get("finalizers") or ()):
                _note_noop_write()
                return kv.value, False  # already deleting: unchanged
            marked = orjson.loads(kv.value)
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
                raise conflict(resource_type.group, resource_type.plural, name, OPTIMISTIC_LOCK_MESSAGE)
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
    ) -> bytes:
        """Delete every object matching the list options, one delete each (as kube does); the
        response is the list of the objects as the deletes left them (in ``view``)."""
        matches = self._filter(opts, field_labels)
        start, end = self.key_range(namespace)
        kvs = self.store.range(RangeRequest(start.encode(), end.encode())).kvs
        items = []
        for kv in kvs:
            obj = self._decode(kv.key.decode(), kv.value, kv.mod_revision)
            if matches is not None and not matches(obj):
                continue
            ns = obj.namespace or None
            body, _gone = self.delete(ns, obj.name, options, gc_finalizers=gc_finalizers)
            deleted = kv.value if is_status(body) else body
            items.append(deleted if view is None else view.encode(deleted))
        return self._list_body(items, self.store.revision, None, None, view)

    @cached_property
    def schema(self) -> Schema | None:
        """The built-in kind's schema (patch strategies, list types); None for custom resources."""
        return None if self.resource_type.custom else kind_schema(
            self.resource_type.group, self.resource_type.version, self.resource_type.kind)

    # ----------------------------------------------------------------- scale

    def get_scale(self, namespace: str | None, name: str) -> bytes:
        _kv, obj = self._current(namespace, name)
        return orjson.dumps(scale.to_scale(obj, self.scale_paths))

    def update_scale(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], dry_run: bool = False,
    ) -> bytes:
        """Write ``change(current Scale)``'s spec.replicas into the object; answers the new Scale."""
        def write_replicas(obj: Json) -> Json:
            return scale.apply_scale(obj, change(scale.to_scale(obj, self.scale_paths)), self.scale_paths)

        raw = self.rewrite(namespace, name, write_replicas, dry_run=dry_run)
        return orjson.dumps(scale.to_scale(orjson.loads(raw), self.scale_paths))

    # ----------------------------------------------------------------- list

    def _filter(self, opts: ListOptions, field_labels: SelectableKind | None) -> Callable[[CachedObject], bool] | None:
        """The request's selectors as a matcher of cached objects; the field selector names the
        field labels of ``field_labels`` (a served version's kind; default this resource's)."""
        labels = parse_label_selector(opts.label_selector)
        fields = parse_field_selector(field_labels or self.resource_type, opts.field_selector)
        return _compile_filter(labels, fields)

    async def list(
        self, namespace: str | None, opts: ListOptions, view: ResponseView | None = None, *,
        field_labels: SelectableKind | None = None,
    ) -> bytes:
        """kube 1.35's routing (``cacher/delegator.go`` with ``ConsistentListFromCache`` and
        ``ListFromCacheSnapshot``): RV "0" and NotOlderThan N -> the cache (once it has reached N);
        RV "" -> a consistent read from the cache once it has caught up with the store; Exact N,
        N with a limit, and continue pages -> the cache's state at N while it still has it,
        else the store at N (410 once compacted)."""
        opts.validate()
        matches = self._filter(opts, field_labels)
        start, end = self.key_range(namespace)
        limit = opts.limit
        if opts.continue_token:
            rv, start_key = continue_token.decode(opts.continue_token)
            if rv < 0:  # an inconsistent continue token: the rest of a consistent read
                return await self._list_consistent(start, self.prefix + start_key, end, limit, matches, view)
            return await self._list_at(start, self.prefix + start_key, end, rv, limit, matches, view, paged=True)
        rv_text = opts.resource_version
        if rv_text == "0":
            return self._list_from_cache(start, end, 0, matches, view)
        if rv_text == "":
            return await self._list_consistent(start, start, end, limit, matches, view)
        rv = opts.resource_version_number()
        match = opts.resource_version_match
        if match == EXACT or (match != NOT_OLDER_THAN and limit > 0):
            return await self._list_at(start, start, end, rv, limit, matches, view, paged=False)
        if not await self.cacher.wait_fresh(rv):
            raise too_large_resource_version(rv, self.cacher.cache.rv)
        return self._list_from_cache(start, end, limit, matches, view)

    async def _list_consistent(
        self, start: str, from_key: str, end: str, limit: int, matches: Callable[[CachedObject], bool] | None,
        view: ResponseView | None,
    ) -> bytes:
        """The cache once it has reached the store's current revision (the store itself should it
        not catch up in time, as kube falls back to etcd)."""
        if not await self.cacher.wait_fresh(self.store.revision):
            return self._list_from_store(start, end, from_key, 0, limit, matches, view, paged=False)
        return self._list_from_cache(from_key, end, limit, matches, view)

    async def _list_at(
        self, start: str, from_key: str, end: str, rv: int, limit: int,
        matches: Callable[[CachedObject], bool] | None, view: ResponseView | None, *, paged: bool,
    ) -> bytes:
        """The state at ``rv``: from the cache's snapshots while it has one (waiting for a revision
        it has not reached yet), else from the store at that revision."""
        cacher = self.cacher
        if rv > cacher.cache.rv and not await cacher.wait_fresh(rv):
            raise too_large_resource_version(rv, cacher.cache.rv)
        cache = cacher.cache
        if not cache.can_list_at(rv):
            return self._list_from_store(start, end, from_key, rv, limit, matches, view, paged=paged)
        objects, count = cache.objects_at(rv, from_key, end)
        return self._page(objects, count, matches, view, rv, limit)

    def _list_from_cache(
        self, start: str, end: str, limit: int, matches: Callable[[CachedObject], bool] | None,
        view: ResponseView | None,
    ) -> bytes:
        """The cache's current state of keys from ``start`` (a continue key, or the range's start)."""
        cache = self.cacher.cache
        rv = cache.rv
        objects, count = cache.objects_at(rv, start, end)
        return self._page(objects, count, matches, view, rv, limit)

    def _list_from_store(
        self,
        start: str,
        end: str,
        from_key: str,
        rv: int,
        limit: int,
        matches: Callable[[CachedObject], bool] | None,
        view: ResponseView | None,
        paged: bool,
    ) -> bytes:
        store = self.store
        try:
            read_rv = rv if rv > 0 else store.revision
            resp = store.range(RangeRequest(from_key.encode(), end.encode(), revision=read_rv))
        except ErrCompacted:
            if paged:
                raise _inconsistent_continue(from_key[len(self.prefix):]) from None
            raise resource_expired("The resourceVersion for the provided list is too old.") from None
        except ErrFutureRev:
            raise too_large_resource_version(rv, store.revision) from None
        cost = request_cost.current.get()
        if cost is not None:
            cost.from_store = True
        # Stored values are decoded only when a selector has to look inside, and only as far as
        # the page goes.
        objects = [CachedObject(kv.key.decode(), "", "", kv.mod_revision, kv.value, {}, {}) for kv in resp.kvs]
        decoded = None if matches is None else (
            lambda o: matches(self._decode(o.key, o.raw, o.rv))  # type: ignore[misc]
        )
        return self._page(iter(objects), len(objects), decoded, view, read_rv, limit)

    def _page(
        self,
        objects: Iterator[CachedObject],
        count: int,
        matches: Callable[[CachedObject], bool] | None,
        view: ResponseView | None,
        rv: int,
        limit: int,
    ) -> bytes:
        """One LIST page of ``objects`` (``count`` of them, in key order): the first ``limit``
        that match, and a continue token at ``rv`` when objects remain after the last one taken,
        with how many remain when no selector makes that unknown (``remainingItemCount``)."""
        items: list[bytes] = []
        token = remaining = None
        examined = 0
        custom = self.resource_type.custom
        for obj in objects:
            examined += 1
            if matches is not None and not matches(obj):
                continue
            items.append((obj.raw if custom else list_item(obj.raw)) if view is None else view.item(obj))
            if limit and len(items) == limit:
                if examined < count:
                    token = continue_token.encode(rv, obj.key[len(self.prefix):] + "\x00")
                    if matches is None:
                        remaining = count - examined
                break
        cost = request_cost.current.get()
        if cost is not None:
            cost.returned += len(items)
            cost.examined += examined
        return self._list_body(items, rv, token, remaining, view)

    def _list_body(
        self, items: list[bytes], rv: int, token: str | None, remaining: int | None, view: ResponseView | None = None,
    ) -> bytes:
        meta: Json = {"resourceVersion": str(rv)}
        if token:
            meta["continue"] = token
            if remaining is not None:
                meta["remainingItemCount"] = remaining
        if view is not None:
            return view.list_body(items, meta)
        return list_bytes(self.list_kind, self.api_version, meta, items)

    # ----------------------------------------------------------------- watch

    async def watch(
        self, namespace: str | None, opts: ListOptions, view: ResponseView | None = None, *,
        field_labels: SelectableKind | None = None,
    ) -> WatchStart:
        """Start a watch from the cache (see kube's ``Cacher.Watch``). Too-old resource versions
        come back as an in-stream error, as kube-apiserver sends them."""
        opts.validate()
        matches = self._filter(opts, field_labels)
        if namespace and self.resource_type.namespaced:
            matches = _and_namespace(matches, namespace)
        start, end = self.key_range(namespace)
        cacher = self.cacher
        rv_text = opts.resource_version
        if rv_text not in ("", "0"):
            rv, problem = parse_resource_version(rv_text)
            if problem:  # the watch handler passes the versioner's error on unclassified
                raise unclassified_error(problem)
            if not await cacher.wait_fresh(rv):
                raise too_large_resource_version(rv, cacher.cache.rv)
        elif rv_text == "" and (opts.send_initial_events or opts.send_initial_events is None):
            # Initial state "most recent": the cache must have caught up with the store.
            await cacher.wait_fresh(self.store.revision)
        watcher = cacher.new_watcher(
            kind=self.kind if view is None else view.kind,
            api_version=self.api_version if view is None else view.api_version,
            matches=matches,
            allow_bookmarks=opts.allow_watch_bookmarks,
            timeout=opts.watch_timeout(),
            view=view,
            namespace=namespace if self.resource_type.namespaced else None,
        )
        cache = cacher.cache
        cost = request_cost.current.get()
        if opts.send_initial_events or (opts.send_initial_events is None and rv_text in ("", "0")):
            watcher.add_initial(cacher.snapshot(start, end), cache.rv)
            if opts.send_initial_events and opts.allow_watch_bookmarks:
                watcher.add_initial_events_end(cache.rv)
        elif rv_text in ("", "0"):
            watcher.last_rv = cache.rv  # sendInitialEvents=false: changes from now on
        else:
            rv = int(rv_text)
            try:
                watcher.add_initial_events(cache.events_since(rv))
            except TooOldResourceVersion as err:
                if cost is not None:
                    cost.expired = True
                return WatchStart(None, resource_expired(str(err)))
            watcher.last_rv = max(watcher.last_rv, rv)
        cacher.register(watcher)
        if cost is not None:
            cost.watcher = watcher
        return WatchStart(watcher)


def _note_noop_write() -> None:
    cost = request_cost.current.get()
    if cost is not None:
        cost.noop_write = True


def _inconsistent_continue(start_key: str) -> StatusError:
    err = resource_expired(
        "The provided continue parameter is too old to display a consistent list result. You can "
        "start a new list without the continue parameter, or use the continue token in this "
        "response to retrieve the remainder of the results. Continuing with the provided token "
        "results in an inconsistent list - objects that were created, modified, or deleted between "
        "the time the first chunk was returned and now may show up in the list."
    )
    err.continue_token = continue_token.encode(-1, start_key)
    return err


def _compile_filter(
    labels: LabelSelector, fields: FieldSelector
) -> Callable[[CachedObject], bool] | None:
    if labels.empty and fields.empty:
        return None
    if fields.empty:
        return lambda o: labels.matches(o.labels)
    if labels.empty:
        return lambda o: fields.matches(o.fields)
    return lambda o: labels.matches(o.labels) and fields.matches(o.fields)


def _and_namespace(
    matches: Callable[[CachedObject], bool] | None, namespace: str
) -> Callable[[CachedObject], bool]:
    if matches is None:
        return lambda o: o.namespace == namespace
    return lambda o: o.namespace == namespace and matches(o)
