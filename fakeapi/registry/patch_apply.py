"""PATCH and server-side apply of a stored object (kube's ``endpoints/handlers/patch.go`` with
the field manager): the patch or the applied configuration is made to the stored object, and the
result written like a PUT of it, by the store that mixes ``FieldManagedWrites`` in."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from ..apiextensions.structural import StructuralSchema
from ..apis.catalogue import ResourceType
from ..apis.rules import NO_RULES, rules_for
from ..machinery import gostruct, metadata, serializer, warning
from ..machinery import patch as patching
from ..machinery.field_manager import FieldManager, check_name
from ..machinery.field_validation import (
    FieldValidation,
    object_strict_errors,
    strict_decoding_message,
    strict_error,
    warning_header,
)
from ..machinery.golang import go_json
from ..machinery.scale_handler import ReplicasPaths, to_parent, to_subresource
from ..machinery.schema import Schema, kind_schema
from ..machinery.status import StatusError, bad_request, invalid, invalid_error, not_found
from . import scale
from .writes import retry_without_managed_fields

if TYPE_CHECKING:
    from .rest import ResourceStore

Json = dict[str, Any]


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
    #: The store that holds the objects and admits their writes (the storage version's).
    storage: ResourceStore
    #: Where this version's objects keep their replicas (``/scale``), and where each version's
    #: do, by group version (the managedFields a ``/scale`` write moves: ``to_parent``).
    scale_paths: scale.ScalePaths
    replicas_paths: ReplicasPaths

    def exists(self, namespace: str | None, name: str) -> bool:
        raise NotImplementedError

    def create(self, namespace: str | None, body: Any, dry_run: bool = False, *, manager: str = "",
               go_decoded: bool = False) -> bytes:
        raise NotImplementedError

    def rewrite(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], *,
        subresource: str | None = None, dry_run: bool = False, manager: str = "", go_decoded: bool = False,
        scaled: scale.Scales | None = None,
    ) -> bytes:
        raise NotImplementedError

    def update_scale(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], dry_run: bool = False,
    ) -> bytes:
        """kube's ``ScaleREST.Update`` of this served version: ``change(current Scale)``'s
        spec.replicas written into the object as this version has it, at this version's
        ``scale_paths`` (kube serves each version's ``/scale`` from that version's store, whose
        objects a conversion webhook converted); answers the new Scale, read off the object
        the write stored, in this version.
        The current Scale has the object's managers of its replicas as its managedFields, and
        ``change`` answers the new one with the managedFields its field manager recorded, which
        go back into the object's under this version (``ScaleHandler``: ``to_subresource``,
        ``to_parent``). Admission sees Scales, as kube's ``ScaleREST`` admits them: the new Scale
        and the stored object's before the replicas are copied into the object (mutating), then
        the Scales of the object to store and of the stored one (validating, ``rewrite``'s
        ``scaled``)."""
        storage, paths = self.storage, self.scale_paths
        target = storage.scale_target(storage.webhook_target("UPDATE", namespace, name))

        def write_replicas(obj: Json) -> Json:
            object_entries = obj["metadata"].get("managedFields")
            current = scale.to_scale(obj, paths)
            scale_entries = to_subresource(object_entries, self.replicas_paths)
            if scale_entries is not None:
                current["metadata"]["managedFields"] = scale_entries
            new_scale = change(copy.deepcopy(current))
            if not isinstance(new_scale, dict) or not isinstance(new_scale.get("metadata", {}), dict):
                return scale.apply_scale(obj, new_scale, paths)  # its 400
            if target is not None:
                # as kube's handler decoded it (Go's zero status) in the request's namespace
                new_scale = scale.decode(new_scale)
                if namespace is not None:
                    new_scale["metadata"].setdefault("namespace", namespace)
            storage.admit_scale(new_scale, current, target)
            updated = scale.apply_scale(obj, new_scale, paths)
            entries = to_parent(object_entries, new_scale["metadata"].get("managedFields"), self.api_version,
                                self.replicas_paths)
            if entries is None:
                updated["metadata"].pop("managedFields", None)
            else:
                updated["metadata"]["managedFields"] = entries
            return updated

        def scales(new: Json, old: Json) -> tuple[Json, Json]:
            return scale.to_scale(new, paths), scale.to_scale(old, paths)

        raw = self.rewrite(namespace, name, write_replicas, dry_run=dry_run, scaled=scales)
        return orjson.dumps(scale.to_scale(orjson.loads(raw), paths))

    def update_scale_by(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], *, manager: str, dry_run: bool = False,
    ) -> bytes:
        """A PUT or non-apply PATCH of ``/scale``: the Scale ``change`` makes of the current one,
        decoded into its Go type as kube's handlers decode it (a patch's result is already, and
        decoding it again changes nothing), must name the URL's object, and is recorded as
        ``manager``'s Update of the Scale (``update_scale`` carries the record to the object's
        managedFields)."""
        fm = self._field_manager("scale")
        now = metadata.now_rfc3339()

        def updated(current: Json) -> Json:
            new = change(current)
            if not isinstance(new, dict) or not isinstance(new.get("metadata", {}), dict):
                return new  # update_scale's 400
            new = scale.decode(new)
            check_name(new, name, namespace or "")
            return fm.update(current, new, manager, now=now)

        return self.update_scale(namespace, name, updated, dry_run)

    def _field_manager(self, subresource: str | None) -> FieldManager:
        """managedFields bookkeeping for the main resource or a subresource (kube keeps one field
        manager per endpoint)."""
        managers = self._field_managers
        fm = managers.get(subresource)
        if fm is None and subresource == "scale":
            # kube's handlers of /scale manage the fields of the Scale they read and write
            # (the endpoint's kind is autoscaling/v1 Scale, whatever the object's)
            fm = managers[subresource] = FieldManager(
                scale.API_VERSION, "Scale", kind_schema(scale.GROUP, "v1", "Scale"), subresource=subresource,
                new_object=gostruct.zero_object(scale.API_VERSION, "Scale"), typed_input=True,
                unconvertible_applies=scale.API_VERSION if self.resource_type.custom else "")
        elif fm is None:
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
        own_strategy = rules.subresources.get(subresource) if subresource else None
        if own_strategy is not None and own_strategy.reset_fields is not None:
            return own_strategy.reset_fields
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
        if subresource == "scale":
            scale_schema = kind_schema(scale.GROUP, "v1", "Scale")
            return self.update_scale_by(namespace, name, lambda current: self._patched(
                current, patch_type, body, name, validation, api_version=scale.API_VERSION, kind="Scale",
                schema=scale_schema, custom=False), manager=manager, dry_run=dry_run)

        def patched(current: Json) -> Json:
            # ``rewrite`` hands the change a copy of its own and reads it no more
            return self._patched(current, patch_type, body, name, validation, api_version=self.api_version,
                                 kind=self.kind, schema=self.schema, custom=self.resource_type.custom,
                                 shares_current=True)

        return self.rewrite(namespace, name, patched, subresource=subresource, dry_run=dry_run, manager=manager,
                            go_decoded=True)

    def _patched(self, current: Json, patch_type: str, body: bytes, name: str, validation: FieldValidation, *,
                 api_version: str, kind: str, schema: Schema | None, custom: bool, shares_current: bool = False,
                 ) -> Json:
        """``current`` (an object of ``kind`` at ``api_version``: the stored one, or its Scale)
        patched, as kube's patch handler makes it: a custom resource's checked as its decoding
        prunes it; a built-in kind's decoded into its Go type, a result that does not decode its
        422 (``undecodable_result``), and under Warn or Strict its unknown and repeated fields
        warnings or (Strict) that 422. ``shares_current``: the caller reads ``current`` no more
        once this returns, so the answer may share the parts a JSON or merge patch leaves alone
        (``apply_patch``'s ``shares_original``; ``current`` itself is left as it was)."""
        group, _, version = api_version.rpartition("/")
        strict = validation is not FieldValidation.IGNORE
        patch_errors = patching.strict_patch_errors(patch_type, body) if strict else []
        result = patching.apply_patch(patch_type, current, body, schema, group=group, kind=kind, name=name,
                                      shares_original=shares_current)
        if custom:
            if strict:
                self._check_custom_patched(result, patch_errors, validation)
            return result

        def undecodable(error: str) -> StatusError:
            # kube patches the object as its Go type encodes it, fields in struct order, which
            # the message shows where the patch left them: the stored object has its
            # defaulted fields last, so the shown result is the patch applied to that encoding
            shown = patching.apply_patch(patch_type, gostruct.decode(current, api_version, kind), body, schema,
                                         group=group, kind=kind, name=name)
            return patching.undecodable_result(patch_type, shown, body, error)

        try:  # decoded here, not in the write's decoding, for the patch handler's error
            if patch_type == patching.STRATEGIC_MERGE_PATCH:  # converted from the patched map
                decoded = gostruct.from_unstructured(result, api_version, kind)
            else:  # read back as JSON, its kind and version first
                serializer.check_patched_kind(result, group=group, version=version, kind=kind)
                decoded = gostruct.decode(result, api_version, kind)
        except gostruct.GoDecodeError as err:
            raise undecodable(str(err)) from None
        if strict and schema is not None:
            errors = patch_errors + object_strict_errors(result, schema)
            if errors and validation is FieldValidation.STRICT:
                raise undecodable(strict_decoding_message(errors))
            for error in errors:
                warning.add_header(warning_header(error))
        return decoded

    def _check_custom_patched(self, patched: Json, patch_errors: list[str], validation: FieldValidation) -> None:
        """A custom resource's patched object decoded as kube's patch handler decodes it
        (``schemaCoercingDecoder``, strictly): the patch's own strict errors, then the unknown
        fields its pruning finds, as warnings or (Strict) kube's 422 on ``patch``, which shows
        the patched object as its unstructured map encodes, keys sorted at every level."""
        unknown: list[str] = []
        if self.structural is not None and patched.get("kind") == self.kind \
                and patched.get("apiVersion") == self.api_version:  # kube prunes only its own kind and version
            unknown = self.structural.prune_resource(copy.deepcopy(patched))
        errors = patch_errors + [strict_error("unknown", path) for path in unknown]
        if errors and validation is FieldValidation.STRICT:
            raise invalid("", "", "", [invalid_error("patch", go_json(patched), strict_decoding_message(errors))])
        for error in errors:
            warning.add_header(warning_header(error))

    def apply(
        self, namespace: str | None, name: str, body: bytes, *, manager: str, force: bool,
        subresource: str | None = None, dry_run: bool = False, validation: FieldValidation = FieldValidation.WARN,
    ) -> tuple[bytes, bool]:
        """Server-side apply (``application/apply-patch+yaml``): the applied configuration is
        merged into the stored object by field ownership, or creates it. Returns the object and
        whether it was created. The body is read as ``sigs.k8s.io/yaml.Unmarshal`` reads it into
        a map; repeated keys are warnings, or a 400 under ``Strict`` (``applyPatcher``)."""
        from ..machinery.goyaml import GoYAMLError, yaml_to_json  # at the first apply: PyYAML costs a start ~7 ms

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
        fm = self._field_manager(subresource)
        now = metadata.now_rfc3339()

        def merged(current: Json | None) -> Json:
            # The field manager's errors (a typed patch of undeclared fields) come first: kube's
            # applyPatcher reads the body strictly only once the apply succeeded.
            result = fm.apply(current, applied, manager, force=force, now=now)
            if repeated and validation is not FieldValidation.IGNORE:
                if validation is FieldValidation.STRICT:
                    raise bad_request("error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:"
                                      "\n  " + "\n  ".join(repeated))
                for text in repeated:
                    warning.add_header(warning_header(text))
            return result

        token = retry_without_managed_fields.set(False)  # kube's apply handler does not retry
        try:
            if not self.exists(namespace, name):
                if subresource:
                    raise not_found(self.resource_type.group, self.resource_type.plural, name)
                created = merged(None)
                check_name(created, name, namespace or "")
                return self.create(namespace, created, dry_run), True
            if subresource == "scale":
                def merged_scale(current: Json) -> Json:
                    result = merged(current)
                    check_name(result, name, namespace or "")
                    return result
                return self.update_scale(namespace, name, merged_scale, dry_run), False
            raw = self.rewrite(namespace, name, merged, subresource=subresource, dry_run=dry_run)
            return raw, False
        finally:
            retry_without_managed_fields.reset(token)
