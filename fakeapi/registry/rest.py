"""REST storage of one resource: kube's generic registry ``Store`` over our store and cacher.

``ResourceStore`` holds the resource's state (its store, cacher, rules, keys) and is made of one
part per path, each in its module: writes (``writes``), deletes (``deletes``), PATCH and apply
(``patch_apply``), and the reads' routing between the watch cache and the store
(``delegator``). The parts are mixins of one class, so a request's calls between them cost
nothing more than calls within one class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson

from ..admission import Admission
from ..apis.catalogue import ResourceType
from ..apis.rules import NO_RULES, KindRules, SubresourceStrategy, rules_for
from ..cacher import CachedObject, Cacher
from ..machinery.field_manager import FieldManager
from ..machinery.jsonvalue import stored_metadata
from ..machinery.schema import Schema, kind_schema
from ..machinery.selectors import SelectableKind, selectable_fields, selects_metadata_only
from ..machinery.status import not_found
from ..store import KeyValue, RangeRequest, StoreInterface
from . import scale
from .delegator import CacheDelegator, ParsedSelectors
from .deletes import StoreDeletes
from .lease_manager import LeaseManager
from .patch_apply import FieldManagedWrites
from .writes import StoreWrites

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class LeaseTTL:
    """Objects of a resource live ``seconds`` after their last write, on leases from ``leases``."""

    seconds: int
    leases: LeaseManager


class ResourceStore(StoreWrites, StoreDeletes, CacheDelegator, FieldManagedWrites):
    def __init__(
        self,
        resource_type: ResourceType,
        store: StoreInterface,
        cacher_config: Any,
        namespace_phase: Callable[[str], str | None],
        ttl: LeaseTTL | None = None,
        admission: Admission | None = None,
    ) -> None:
        self.resource_type = resource_type
        self.store = store
        #: Whether its reads and writes wait on the event loop (``runtime.run_awaiting``): a
        #: store's calls may (``calls_wait``; a ``ConvertingStore``'s when its conversion calls out).
        self.waits = store.calls_wait
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
        #: Where the kind's replicas are, by the group versions of its managedFields (``to_parent``).
        self.replicas_paths = scale.built_in_replicas_paths(resource_type.group, resource_type.kind)
        self._field_managers: dict[str | None, FieldManager] = {}
        #: ``cached_objects``' reads, by namespace: the cache's change count, the objects.
        self._listed: dict[str | None, tuple[int, list[Json]]] = {}
        #: ``_filter``'s parsed selectors, by their text: the kind whose fields they name, and them.
        self._parsed_selectors: dict[tuple[str, str], tuple[SelectableKind, ParsedSelectors]] = {}
        #: Subresources whose updates have a strategy of their own (pods' ephemeralcontainers
        #: and resize, set by the registry; a kind's ``KindRules.subresources``: CSRs' approval).
        self.subresource_strategies: dict[str, SubresourceStrategy] = dict(self.rules.subresources)
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
        """The cached form of a stored object (as ``_read`` serves it): namespace and name are
        read off its key (the registry stores every object under ``key(namespace, name)``); what
        selectors match is decoded from ``raw`` only when one asks."""
        path = key[len(self.prefix):]
        namespace, _, name = path.partition("/") if self.resource_type.namespaced else ("", "", path)
        return CachedObject(key, namespace, name, rv, self._read(raw, rv), decode_selectors=self._decode_selectors)

    def _read(self, value: bytes, mod_revision: int) -> bytes:
        """A stored value (written at ``mod_revision``) as reads, and the writes that start from
        it, see the object: the stored bytes themselves (a custom resource's store decodes those
        written before its CRD last changed: ``CustomResourceStore``)."""
        return value

    def _selectors(self, raw: bytes) -> tuple[Json, Json]:
        if self._selects_metadata_only and (meta := stored_metadata(raw)) is not None:
            return self._selectors_of({"metadata": meta})
        return self._selectors_of(orjson.loads(raw))

    def _selectors_of(self, obj: Json) -> tuple[Json, Json]:
        """What selectors match of ``obj``: its labels (a copy) and selectable fields."""
        return dict((obj.get("metadata") or {}).get("labels") or {}), selectable_fields(self.resource_type, obj)

    def _current(self, namespace: str | None, name: str) -> tuple[KeyValue, Json]:
        kv = self.store.get(self.key(namespace, name).encode())
        if kv is None:
            raise not_found(self.resource_type.group, self.resource_type.plural, name)
        return kv, orjson.loads(self._read(kv.value, kv.mod_revision))

    #: A custom resource's ``additionalPrinterColumns`` (built-in kinds have printers).
    printer_columns: tuple[Json, ...] | None = None
    @cached_property
    def schema(self) -> Schema | None:
        """The built-in kind's schema (patch strategies, list types); None for custom resources."""
        return None if self.resource_type.custom else kind_schema(
            self.resource_type.group, self.resource_type.version, self.resource_type.kind)

    # ----------------------------------------------------------------- scale

    def get_scale(self, namespace: str | None, name: str) -> bytes:
        _kv, obj = self._current(namespace, name)
        return orjson.dumps(scale.to_scale(obj, self.scale_paths))
