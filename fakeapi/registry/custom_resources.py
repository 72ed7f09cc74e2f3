"""CustomResourceDefinitions and the custom resources they define, as apiextensions-apiserver
serves them (``pkg/registry/customresourcedefinition``, ``pkg/registry/customresource``).

``CustomResourceDefinitionStore``: a CRD is defaulted, validated and given its status (names
accepted, established) in the write that creates or changes it, and the registry serves its
resources from that same write on: clients may create custom resources right after the CRD.
DELETE marks the CRD with the ``customresourcecleanup.apiextensions.k8s.io`` finalizer and a
``Terminating`` condition; the CRD cleanup controller deletes its objects, then the finalizer.

``CustomResourceStore``: every write of a custom resource is pruned, defaulted and validated
against the version's structural schema and its scale subresource's paths, then by its
``x-kubernetes-validations`` rules (on the
whole object, ``/status`` writes too); ``/status`` writes validate the status. A finalizer
name that built-in kinds refuse (no ``/``, not a standard one) is only warned about.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import orjson

from ..apiextensions.crd import CustomResourceType, custom_resource_types
from ..apiextensions.crd_defaults import default_crd
from ..apiextensions.crd_names import accepted_names_of_group, crd_status
from ..apiextensions.crd_strategy import prepare_crd_create, prepare_crd_update
from ..apiextensions.crd_validation import validate_crd
from ..apiextensions.scale_validation import scale_spec_errors, scale_status_errors
from ..apis.catalogue import ResourceType
from ..apis.rules import KindRules
from ..machinery import metadata, validation, warning
from ..machinery.golang import go_quote
from ..machinery.scale_handler import replicas_path
from ..machinery.selectors import selectable_fields
from ..machinery.delete_options import DeleteOptions
from ..machinery.status import FieldError, invalid, invalid_error
from ..store import RangeRequest, prefix_range_end
from .rest import Json, ResourceStore
from .scale import custom_scale_paths
from .writes import until_current

CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def is_established(crd: Json) -> bool:
    return any(c.get("type") == "Established" and c.get("status") == "True"
               for c in (crd.get("status") or {}).get("conditions") or ())


def finalizer_warnings(new: Json, old: Json | None = None) -> list[str]:
    """The custom resource strategy's ``WarningsOnCreate`` and ``WarningsOnUpdate``
    (``generateWarningsFromObj``): for each finalizer the write adds, in sorted order, what
    ``validateKubeFinalizerName`` says of it: its qualified-name errors, and a preference for a
    domain-qualified name when it has no ``/`` and is not a standard one."""
    added = set(new["metadata"].get("finalizers") or ())
    if old is not None:
        added -= set(old["metadata"].get("finalizers") or ())
    warnings = []
    for name in sorted(added):
        field = f"metadata.finalizers: {go_quote(name)}"
        warnings += [f"{field}: {message}" for message in validation.is_qualified_name(name)]
        if "/" not in name and name not in validation.STANDARD_FINALIZERS:
            qualified = "a domain-qualified finalizer name" + (" including a path (/)" if "." in name else "")
            warnings.append(f"{field}: prefer {qualified} to avoid accidental conflicts with other finalizer writers")
    return warnings


#: The custom resource strategy's hooks the generic store runs (its validation is this store's
#: own, by the CRD's schema).
_CUSTOM_RESOURCE_RULES = KindRules(warnings_on_create=finalizer_warnings, warnings_on_update=finalizer_warnings,
                                   allow_unconditional_update=False)


class CustomResourceStore(ResourceStore):
    """A custom resource's storage: ``definition`` (its CRD version) is swapped in place when
    the CRD changes without moving the resource."""

    definition: CustomResourceType

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rules = _CUSTOM_RESOURCE_RULES

    #: What the cached objects offer field selectors: the fields of every served version's
    #: selectable fields (their values read off the stored object: each version's is the same
    #: object but for its apiVersion). Fixed for the store's life: the registry makes a new store
    #: (a new watch cache) when the CRD changes them.
    selection: ResourceType

    def define(self, definition: CustomResourceType, served: list[CustomResourceType], revision: int) -> None:
        """Serve ``definition`` (the storage version of the CRD written at ``revision``), whose
        ``served`` versions select by their selectable fields."""
        self.definition = definition
        #: Objects written after the CRD were pruned and defaulted by this definition's schema;
        #: older ones are as an earlier schema left them.
        self._defined_at = revision
        self.resource_type = definition.resource_type()
        self.selection = dataclasses.replace(self.resource_type, selectable_fields=selectable_union(served))
        self._selects_metadata_only = not self.selection.selectable_fields
        self.kind = definition.kind
        self.api_version = definition.group_version  # the storage version may change
        self._field_managers = {}
        self.list_kind = definition.list_kind
        self.printer_columns = tuple(definition.printer_columns)
        if definition.scale is not None:
            self.scale_paths = custom_scale_paths(definition.scale)
        # kube maps every version of the CRD; the unserved ones but the storage version are left
        # out here (no request writes them, but their entries are dropped by a /scale write)
        self.replicas_paths = {
            version.group_version: replicas_path(version.scale.spec_replicas_path) if version.scale else ()
            for version in (definition, *served)}

    def _read(self, value: bytes, mod_revision: int) -> bytes:
        """An object stored before the CRD last changed, decoded as kube decodes it from storage
        (``schemaCoercingDecoder`` and the ``unstructuredDefaulter`` of its codec): pruned and
        defaulted by the storage version's schema, so that a default added since shows in every
        read, and is written only by the object's next write. The same bytes when that changes
        nothing, or when the object is of another version (stored before the storage version
        changed: left as stored)."""
        if mod_revision > self._defined_at:
            return value
        obj = orjson.loads(value)
        if obj.get("apiVersion") != self.api_version:
            return value
        structural = self.definition.structural
        structural.prune(obj)
        structural.default(obj)
        return value if obj == orjson.loads(value) else orjson.dumps(obj)

    def _selectors_of(self, obj: Json) -> tuple[Json, Json]:
        return dict((obj.get("metadata") or {}).get("labels") or {}), selectable_fields(self.selection, obj)

    def _default_custom(self, obj: Json) -> None:
        # The type is checked while the body still has its own (the write then sets the served one).
        self._check_type_meta(obj)
        structural = self.definition.structural
        structural.prune(obj)
        structural.default(obj)

    def _validate_create(self, obj: Json) -> None:
        """``customResourceValidator.Validate`` once the name is generated: the metadata by the
        generic rules and the object by its schema (the type was checked on decoding)."""
        errors = validation.validate_object_meta(obj["metadata"], self.resource_type.namespaced,
                                                 validation.name_is_dns_subdomain)
        scale = self.definition.scale
        errors += self.definition.structural.validate(obj, scale_spec_errors(obj, scale) + scale_status_errors(obj, scale))
        self._raise_if(obj, errors + self.definition.rules.validate(obj, None, errors))
        self._warn_on_create(obj)

    def _update_validation(self, subresource: str | None) -> Callable[[Json, Json], list[FieldError]]:
        """``customResourceStrategy.ValidateUpdate`` (the status strategy's for ``/status``),
        which the common fields' validation precedes. It checks the metadata update again, as
        kube's does: a changed uid is two causes in kube's 422, and so here."""
        structural, rules, scale = self.definition.structural, self.definition.rules, self.definition.scale

        def with_rules(errors: list[FieldError], new: Json, old: Json) -> list[FieldError]:
            return errors + rules.validate(new, old, errors, warning.add)

        if subresource == "status":
            return lambda new, old: with_rules(structural.validate_status(new, scale_status_errors(new, scale)), new, old)
        return lambda new, old: with_rules(
            validation.validate_object_meta_update(new["metadata"], old["metadata"])
            + structural.validate(new, scale_spec_errors(new, scale) + scale_status_errors(new, scale)), new, old)

    def _check_type_meta(self, obj: Json) -> None:
        """``ValidateTypeMeta``: the kind and API version must be the version's (a 422 naming the
        object's own kind, which kube's strategy refuses before anything else)."""
        kind, api_version = obj.get("kind", ""), obj.get("apiVersion", "")
        errors = []
        if kind != self.resource_type.kind:
            errors.append(invalid_error("kind", kind, f"must be {self.resource_type.kind}"))
        if api_version != self.api_version:
            errors.append(invalid_error("apiVersion", api_version, f"must be {self.api_version}"))
        if errors:
            raise invalid(api_version.rpartition("/")[0], kind, obj["metadata"].get("name", ""), errors)

    def _raise_if(self, obj: Json, errors: list[Any]) -> None:
        if errors:
            raise invalid(self.resource_type.group, self.resource_type.kind, obj["metadata"].get("name", ""), errors)


class CustomResourceDefinitionStore(ResourceStore):
    #: Called after every landed write of a CRD: (name, the CRD or None once it is gone).
    on_change: Callable[[str, Json | None], None] = staticmethod(lambda name, crd: None)

    def definitions(self, excluding: str = "") -> list[Json]:
        """Every stored CRD but ``excluding``."""
        start = self.prefix.encode()
        kvs = self.store.range(RangeRequest(start, prefix_range_end(start))).kvs
        return [crd for crd in (orjson.loads(kv.value) for kv in kvs) if crd["metadata"]["name"] != excluding]

    def _with_status(self, crd: Json) -> None:
        name = crd["metadata"].get("name", "")
        group = (crd.get("spec") or {}).get("group", "")
        crd["status"] = crd_status(crd, *accepted_names_of_group(self.definitions(name), group, name))

    def _admit_create(self, obj: Json) -> None:
        default_crd(obj)
        validate_crd(obj)
        prepare_crd_create(obj)
        self._with_status(obj)

    def _admit_update(self, new: Json, old: Json, subresource: str | None) -> None:
        if subresource == "status":
            return
        default_crd(new)
        validate_crd(new, old)
        prepare_crd_update(new, old)
        self._with_status(new)

    def _committed(self, old: Json | None, new: Json | None) -> None:
        self.on_change((new or old or {}).get("metadata", {}).get("name", ""), new)

    def delete(
        self, namespace: str | None, name: str, options: DeleteOptions = DeleteOptions(), *,
        gc_finalizers: bool = False,
    ) -> tuple[bytes, bool]:
        """kube's CRD ``Delete``: never at once; mark it terminating with the cleanup finalizer."""
        def attempt() -> tuple[bytes, bool]:
            kv, old = self._current(None, name)
            self._check_preconditions(name, options, old.get("metadata", {}), kv)
            if old["metadata"].get("deletionTimestamp"):
                return kv.value, False
            marked = orjson.loads(kv.value)
            meta = marked["metadata"]
            meta["deletionTimestamp"] = metadata.now_rfc3339()
            if CLEANUP_FINALIZER not in (meta.get("finalizers") or ()):
                meta["finalizers"] = [*(meta.get("finalizers") or ()), CLEANUP_FINALIZER]
            conditions = [c for c in (marked.get("status") or {}).get("conditions") or ()
                          if c.get("type") != "Terminating"]
            conditions.append({
                "type": "Terminating", "status": "True", "lastTransitionTime": meta["deletionTimestamp"],
                "reason": "InstanceDeletionPending",
                "message": "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon"})
            marked.setdefault("status", {})["conditions"] = conditions
            return self._commit_update(kv, old, marked, options.dry_run), False
        return until_current(attempt)


def selectable_union(served: list[CustomResourceType]) -> tuple[str, ...]:
    """The selectable fields of any of ``served``, each once, in order."""
    return tuple(dict.fromkeys(name for definition in served for name in definition.selectable_fields))


def served_definitions(crd: Json) -> tuple[CustomResourceType, list[CustomResourceType]]:
    """The storage version's definition and the served ones (the storage version first)."""
    types = custom_resource_types(crd)
    storage = next(t for t in types if t.storage)
    served = [t for t in types if t.served]
    served.sort(key=lambda t: t is not storage)
    return storage, served

