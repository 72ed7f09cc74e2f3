"""Server-side apply and managedFields tracking: kube's field manager as pure functions.

apimachinery's ``managedfields/internal`` (``fieldmanager.go``, ``versioncheck.go``,
``lastappliedupdater.go``, ``lastappliedmanager.go``, ``skipnonapplied.go``, ``capmanagers.go``,
``buildmanagerinfo.go``, ``managedfieldsupdater.go``, ``stripmeta.go``, ``structuredmerge.go``,
``conflict.go``) as vendored by kube-apiserver v1.32: the same chain ``NewDefaultFieldManager``
builds, over the updater of ``merge``. Also the name checks kube's handlers make on the object a
write produced (``check_name``).

Objects are one API version here: the version converter kube plugs into the updater is the
identity, so managers recorded at another apiVersion are compared against the object as it is.
Callers pass objects as kube's decoder would hand them over: unknown fields already pruned and
defaults applied (kube records defaulted fields as owned by the writer).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from . import status
from .fieldpath import FieldSet, PathElement, VersionedSet, path_string
from .golang import go_quote
from .jsonvalue import Repeated, json_copy, json_key
from .managed_fields import (
    UPDATE,
    Managed,
    ManagedFieldsError,
    canonical_time,
    decode_managed_fields,
    encode_managed_fields,
    is_reset,
    manager_identifier,
    parse_manager_identifier,
    parse_time,
)
from .merge import Conflict, Conflicts, updater_apply, updater_update
from .schema import Schema
from .schemaconv import object_type
from .status import Cause, StatusError
from .typed import MISSING, ValidationError, to_field_set, validate
from .typed_compare import compare
from .value import go_json

# --- the field manager (managedfields/internal) ------------------------------------------------

LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
MAX_UPDATE_MANAGERS = 10  # DefaultMaxUpdateManagers
_ANNOTATIONS_MAX_BYTES = 256 * 1024  # apimachinery validation.TotalAnnotationSizeLimitB
_CURRENT_OPERATION = "current-operation"
_BEFORE_FIRST_APPLY = "before-first-apply"
_ANCIENT_CHANGES = "ancient-changes"
_KUBECTL = "kubectl"

#: ``stripMetaManager``'s set: nobody owns these, whatever they send.
_STRIPPED = FieldSet.of(*(tuple(PathElement.field(part) for part in path) for path in (
    ("apiVersion",), ("kind",), ("metadata",), ("metadata", "name"), ("metadata", "namespace"),
    ("metadata", "creationTimestamp"), ("metadata", "selfLink"), ("metadata", "uid"),
    ("metadata", "clusterName"), ("metadata", "generation"), ("metadata", "managedFields"),
    ("metadata", "resourceVersion"))))


def _group_version_kind(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    """``Unstructured.GroupVersionKind``: an apiVersion with more than one slash parses to
    nothing."""
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    api_version = api_version if isinstance(api_version, str) else ""
    parts = api_version.split("/") if api_version else []
    if len(parts) > 2:
        return "", "", ""
    group, version = (parts[0], parts[1]) if len(parts) == 2 else ("", api_version)
    return group, version, kind if isinstance(kind, str) else ""


def _gvk_string(group: str, version: str, kind: str) -> str:
    """``GroupVersionKind.String``: ``apps/v1, Kind=Deployment``, ``/v1, Kind=Pod``."""
    return f"{group}/{version}, Kind={kind}"


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _managed_fields_of(obj: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """``Unstructured.GetManagedFields``: ``None`` unless a list of objects."""
    entries = _metadata(obj).get("managedFields")
    if not isinstance(entries, list) or not all(isinstance(entry, Mapping) for entry in entries):
        return None
    return entries


def _set_managed_fields(obj: dict[str, Any], entries: list[dict[str, Any]] | None) -> None:
    """``SetManagedFields``: ``None`` removes the field."""
    meta = obj.get("metadata")
    if entries is None:
        if isinstance(meta, dict):
            meta.pop("managedFields", None)
        return
    if not isinstance(meta, dict):
        meta = obj["metadata"] = {}
    meta["managedFields"] = entries


def _without_managed_fields(obj: Mapping[str, Any]) -> dict[str, Any]:
    out = json_copy(dict(obj))
    _set_managed_fields(out, None)
    return out


def _object_name(obj: Mapping[str, Any]) -> str:
    meta = _metadata(obj)
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}; {_gvk_string(*_group_version_kind(obj))}"


class _UpdateFailed(Exception):
    """An error ``FieldManager.Update`` returns, which ``UpdateNoErrors`` swallows."""


def _conflict_manager(identifier: str) -> str:
    """``printManager``: ``"kubectl"``, ``"x" with subresource "status"``, and for updaters
    `` using <apiVersion>`` (the identifier carries no time, so no `` at <time>``)."""
    entry = parse_manager_identifier(identifier)
    text = go_quote(entry.get("manager", ""))
    if entry.get("subresource"):
        text += f" with subresource {go_quote(entry['subresource'])}"
    if entry.get("operation") == UPDATE:
        text += f" using {entry.get('apiVersion', '')}"
    return text


def conflict_error(conflicts: list[Conflict]) -> StatusError:
    """``NewConflictError``: 409 with one ``FieldManagerConflict`` cause per field and the
    message ``getConflictMessage`` builds (one conflict inline, several grouped by manager)."""
    causes = [Cause(reason="FieldManagerConflict", message=f"conflict with {_conflict_manager(c.manager)}",
                    field=path_string(c.path)) for c in conflicts]
    if len(conflicts) == 1:
        only = conflicts[0]
        message = f"Apply failed with 1 conflict: conflict with {_conflict_manager(only.manager)}: {path_string(only.path)}"
    else:
        lines = []
        for manager in sorted({c.manager for c in conflicts}):
            lines.append(f"conflicts with {_conflict_manager(manager)}:")
            lines.extend(f"- {path_string(c.path)}" for c in conflicts if c.manager == manager)
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return status.apply_conflict(causes, message)


class FieldManager:
    """kube's ``FieldManager`` for one endpoint: a kind at one apiVersion, optionally a
    subresource (``NewDefaultFieldManager``/``NewDefaultCRDFieldManager``).

    ``schema`` is the kind's (``kind_schema`` for built-ins, the CRD version's schema for custom
    resources) or ``None`` for a custom resource without a structural schema, whose fields kube
    tracks with ``NewDeducedTypeConverter``. ``now`` arguments are RFC 3339 timestamps."""

    def __init__(self, api_version: str, kind: str, schema: Schema | None, *, subresource: str = "",
                 reset_fields: Sequence[tuple[str, ...]] = (), new_object: Mapping[str, Any] | None = None,
                 typed_input: bool = False, unconvertible_applies: str = "") -> None:
        self.api_version = api_version
        self.kind = kind
        self.subresource = subresource
        self.type_ref = object_type(schema)
        #: Objects arrive decoded into the kind's Go type (built-in kinds: ``gostruct``), so they
        #: conform to its schema: kube's typed conversion cannot fail on them, and an update
        #: skips checking it again.
        self._typed_input = typed_input
        #: Set (to the group version it converts to) for a custom resource's ``/scale``: kube
        #: manages the Scale's fields with the converter of the custom resource, which cannot
        #: convert the Scale an apply makes, so that an apply that changes it fails (kube's 500)
        #: after its conflicts were found, while one that changes nothing records its manager.
        self._unconvertible_applies = unconvertible_applies
        #: The strategy's reset fields: owned by nobody through this endpoint (``IgnoreFilter``).
        self._ignored = FieldSet.of(*(tuple(map(PathElement.field, path)) for path in reset_fields)) \
            if reset_fields else None
        #: ``objectCreater.New(kind)`` as the field manager sees it: for a built-in kind the zero
        #: value of its Go type (``new_object``: non-pointer structs present); an unstructured
        #: object with only its type for a custom resource.
        self._empty = new_object if new_object is not None else {"apiVersion": api_version, "kind": kind}
        #: What a create's fields come to (``_first_fields``), by the new object's ``_shape``.
        self._created: Repeated[tuple[Any, ...], dict[str, VersionedSet]] = Repeated(256)

    # public operations ---------------------------------------------------------------------

    def update(self, live: Mapping[str, Any] | None, new: Mapping[str, Any], manager: str, *, now: str) -> dict[str, Any]:
        """A create (``live`` None), PUT or non-apply PATCH by ``manager``: ``new`` with
        managedFields recomputed (``FieldManager.UpdateNoErrors``: should tracking fail, e.g.
        on a value its schema rejects, the result has no managedFields, as upstream)."""
        live_obj = self._live_or_empty(live)
        # Only metadata.managedFields changes: a copy of the top and of metadata is enough.
        result = dict(new)
        if isinstance(result.get("metadata"), dict):
            result["metadata"] = dict(result["metadata"])
        managed = self._decode_live_or_new(live_obj, result)
        _set_managed_fields(result, None)
        try:
            managed = self._skip_non_applied_update(live_obj, result, managed, manager, now)
        except _UpdateFailed:
            return result
        _set_managed_fields(result, encode_managed_fields(managed))
        return result

    def apply(self, live: Mapping[str, Any] | None, applied: Mapping[str, Any], manager: str, *,
              force: bool, now: str) -> dict[str, Any]:
        """An ``application/apply-patch+yaml`` PATCH by ``manager`` (``live`` None creates):
        the merged object with managedFields. Raises ``StatusError``: 409 for conflicts (unless
        ``force``), 400 for a wrong apiVersion/kind or a body with managedFields, 500 for values
        the schema rejects (upstream's error text)."""
        live_obj = self._live_or_empty(live)
        try:
            managed = decode_managed_fields(_managed_fields_of(live_obj))
        except ManagedFieldsError as err:
            raise status.unclassified_error(f"failed to decode managed fields: {err}") from err
        gvk = _group_version_kind(applied)
        if gvk != (*self._group_version(), self.kind):
            raise status.bad_request(f"invalid object type: {_gvk_string(*gvk)}")
        try:
            obj, managed = self._apply_last_applied(live_obj, applied, managed, manager, force, now)
        except Conflicts as conflicts:
            raise conflict_error(conflicts.conflicts) from None
        _set_managed_fields(obj, encode_managed_fields(managed))
        return obj

    # chain pieces, outermost first -----------------------------------------------------------

    def _group_version(self) -> tuple[str, str]:
        group, _, version = self.api_version.rpartition("/")
        return group, version

    def _live_or_empty(self, live: Mapping[str, Any] | None) -> Mapping[str, Any]:
        """The live object, or for a create what ``objectCreater.New(kind)`` gives."""
        return live if live is not None else self._empty

    def _decode_live_or_new(self, live: Mapping[str, Any], new: Mapping[str, Any]) -> Managed:
        """``decodeLiveOrNew``: managedFields the client sent win (``[]`` resets them), unless
        absent, empty or undecodable; a subresource write always starts from the live ones."""
        sent = _managed_fields_of(new)
        if not self.subresource:
            if is_reset(sent):
                return Managed()
            try:
                managed = decode_managed_fields(sent)
                if managed.fields:
                    return managed
            except ManagedFieldsError:
                pass
        try:
            return decode_managed_fields(_managed_fields_of(live))
        except ManagedFieldsError:
            return Managed()

    def _apply_last_applied(self, live: Mapping[str, Any], applied: Mapping[str, Any], managed: Managed,
                            manager: str, force: bool, now: str) -> tuple[dict[str, Any], Managed]:
        """``lastAppliedManager`` + ``lastAppliedUpdater``: for manager ``kubectl``, conflicts
        with fields still as the client-side last-applied annotation says are forced, and an
        existing annotation is rewritten to the applied configuration."""
        try:
            obj, managed = self._skip_non_applied_apply(live, applied, managed, manager, force, now)
        except Conflicts as conflicts:
            if manager != _KUBECTL:
                raise
            allowed = self._allowed_conflicts(live)
            if allowed is None:
                raise
            remaining = [c for c in conflicts.conflicts if not allowed.has(c.path)]
            if remaining:
                raise Conflicts(remaining) from None
            obj, managed = self._skip_non_applied_apply(live, applied, managed, manager, True, now)
        if manager == _KUBECTL and _metadata(obj).get("annotations", {}).get(LAST_APPLIED_ANNOTATION):
            _set_last_applied(obj, _build_last_applied(applied))
        return obj, managed

    def _allowed_conflicts(self, live: Mapping[str, Any]) -> FieldSet | None:
        """``allowedConflictsFromLastApplied``: fields of the last-applied annotation whose live
        value still matches it; ``None`` when there is no usable annotation."""
        annotations = _metadata(live).get("annotations")
        last_applied = annotations.get(LAST_APPLIED_ANNOTATION) if isinstance(annotations, Mapping) else None
        if not last_applied:
            return None
        try:
            last = json.loads(last_applied)
            # Unstructured's JSON decoding wants a kind; the version must be the live object's.
            if not isinstance(last, dict) or not last.get("kind") or last.get("apiVersion") != self.api_version:
                return None
            validate(live, self.type_ref, allow_duplicates=False)
            validate(last, self.type_ref, allow_duplicates=False)
        except (ValueError, ValidationError):
            return None
        comparison = compare(last, live, self.type_ref)
        return (to_field_set(last, self.type_ref).difference(comparison.modified)
                .difference(comparison.added).difference(comparison.removed))

    def _skip_non_applied_update(self, live: Mapping[str, Any], new: Mapping[str, Any], managed: Managed,
                                 manager: str, now: str) -> Managed:
        """``skipNonAppliedManager.Update``: an existing object nobody tracks yet stays untracked
        (only creates start tracking)."""
        if not managed.fields and _metadata(live).get("uid"):
            return managed
        return self._capped_update(live, new, managed, manager, now)

    def _skip_non_applied_apply(self, live: Mapping[str, Any], applied: Mapping[str, Any], managed: Managed,
                                manager: str, force: bool, now: str) -> tuple[dict[str, Any], Managed]:
        """``skipNonAppliedManager.Apply``: before the first apply to an untracked object, its
        fields are given to an Update manager ``before-first-apply``."""
        if not managed.fields:
            try:
                managed = self._capped_update(self._live_or_empty(None), live, managed, _BEFORE_FIRST_APPLY, now)
            except _UpdateFailed as err:
                raise status.unclassified_error(f"failed to create manager for existing fields: {err}") from err
        return self._structured_apply(live, applied, managed, manager, force, now)

    def _capped_update(self, live: Mapping[str, Any], new: Mapping[str, Any], managed: Managed,
                       manager: str, now: str) -> Managed:
        """``capManagersManager.Update`` around ``buildManagerInfo`` and
        ``managedFieldsUpdater``: the update is recorded under a temporary identity, folded into
        the manager's entry stamped ``now``, then Update entries are capped."""
        identifier = manager_identifier(manager or "unknown", UPDATE, self.api_version, self.subresource)
        managed = Managed(dict(managed.fields), dict(managed.times))
        if managed.fields or live is not self._empty:
            fields = _strip_meta(self._structured_update(live, new, managed.fields), _CURRENT_OPERATION)
        else:
            fields = dict(self._first_fields(new))
        if (current := fields.pop(_CURRENT_OPERATION, None)) is not None:
            previous = fields.get(identifier)
            owned = current.set.union(previous.set) if previous else current.set
            fields[identifier] = VersionedSet(owned, current.api_version, current.applied)
            managed.times[identifier] = canonical_time(now)
        managed.fields = fields
        return _cap_update_managers(managed)

    def _first_fields(self, new: Mapping[str, Any]) -> dict[str, VersionedSet]:
        """``_structured_update`` and ``_strip_meta`` of a create with no managers yet (or the
        first apply's ``before-first-apply``): the fields of ``new`` against the empty object,
        kept by ``new``'s shape (the pods of one template, and a load test's, share theirs).
        Never changed by the caller."""
        def first() -> dict[str, VersionedSet]:
            return _strip_meta(self._structured_update(self._empty, new, {}), _CURRENT_OPERATION)
        shape = _shape(new) if self._typed_input and not _metadata(self._empty) else None
        return first() if shape is None else self._created.answer(shape, first)

    def _structured_update(self, live: Mapping[str, Any], new: Mapping[str, Any],
                           fields: dict[str, VersionedSet]) -> dict[str, VersionedSet]:
        """``structuredMergeManager.Update``."""
        for obj, role in () if self._typed_input else ((new, "new"), (live, "live")):
            try:
                validate(obj, self.type_ref, allow_duplicates=True)
            except ValidationError as err:
                raise _UpdateFailed(f"failed to convert {role} object ({_object_name(obj)}) to smd typed: {err}") from err
        return updater_update(live, new, self.type_ref, self.api_version, fields, _CURRENT_OPERATION,
                              self._ignored)

    def _structured_apply(self, live: Mapping[str, Any], applied: Mapping[str, Any], managed: Managed,
                          manager: str, force: bool, now: str) -> tuple[dict[str, Any], Managed]:
        """``structuredMergeManager.Apply`` inside ``stripMetaManager`` and
        ``managedFieldsUpdater``: the applier's entry is stamped ``now`` unless nothing changed."""
        identifier = manager_identifier(manager, "Apply", self.api_version, self.subresource)
        if _managed_fields_of(applied) is not None:
            raise status.bad_request("metadata.managedFields must be nil")
        # The live object of a typed kind was decoded into its Go type: it conforms (as in update).
        checked = ((applied, "patch", False),) if self._typed_input else ((applied, "patch", False), (live, "live", True))
        for obj, role, duplicates in checked:
            try:
                validate(obj, self.type_ref, allow_duplicates=duplicates)
            except ValidationError as err:
                raise status.unclassified_error(
                    f"failed to create typed {role} object ({_object_name(obj)}): {err}") from err
        merged, fields = updater_apply(live, applied, self.type_ref, self.api_version, managed.fields,
                                       identifier, force=force, ignored=self._ignored)
        if merged is not MISSING and self._unconvertible_applies:
            raise status.unclassified_error(
                f"failed to convert new object ({_object_name(applied)}) to proper version: request to convert CR to "
                f"an invalid group/version: {self._unconvertible_applies}")
        managed = Managed(_strip_meta(fields, identifier), dict(managed.times))
        if merged is MISSING:
            return _without_managed_fields(live), managed
        managed.times[identifier] = canonical_time(now)
        return merged, managed


#: Metadata maps whose values are strings, each a leaf the field set names by its key alone.
_STRING_MAPS = ("labels", "annotations")


def _shape(obj: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """What the fields of a typed object against its kind's empty one depend on (None: too
    large to key): its JSON, but for its metadata only which fields it has, with the keys of
    its labels and annotations and the JSON of its other maps and lists. Compare finds each
    metadata field added, its value unseen (the empty object's metadata is empty, as
    ``_first_fields`` checks): an object's own name, uid and label values leave the set as
    it is. Scalars keep their type (``1``, ``1.0`` and ``True`` hash alike)."""
    out: list[Any] = []
    for key, value in obj.items():
        if key == "metadata" and type(value) is dict:
            meta: list[Any] = []
            for field_name, item in value.items():
                if isinstance(item, (dict, list)):
                    if field_name in _STRING_MAPS and type(item) is dict:
                        meta.append((field_name, tuple(item)))
                    elif (encoded := json_key(item)) is not None:
                        meta.append((field_name, encoded))
                    else:
                        return None
                else:
                    meta.append(field_name)
            out.append((key, tuple(meta)))
        elif isinstance(value, (dict, list)):
            if (encoded := json_key(value)) is None:
                return None
            out.append((key, encoded))
        else:
            out.append((key, type(value), value))
    return tuple(out)


def _strip_meta(fields: dict[str, VersionedSet], manager: str) -> dict[str, VersionedSet]:
    """``stripMetaManager.stripFields``: the manager's set without object identity fields."""
    if manager not in fields:
        return fields
    versioned = fields[manager]
    rest = versioned.set.difference(_STRIPPED)
    out = dict(fields)
    if rest.empty:
        del out[manager]
    else:
        out[manager] = VersionedSet(rest, versioned.api_version, versioned.applied)
    return out


def _cap_update_managers(managed: Managed) -> Managed:
    """``capManagersManager.capUpdateManagers``: beyond 10 Update entries, the oldest are
    merged, per apiVersion, into an ``ancient-changes`` entry (which takes the first folded
    manager's place and the latest folded time)."""
    updaters = [m for m, versioned in managed.fields.items() if not versioned.applied]
    if len(updaters) <= MAX_UPDATE_MANAGERS:
        return managed

    def age(manager: str) -> tuple[int, str]:
        time = managed.times.get(manager)
        return (int(parse_time(time).timestamp()) if time else 0, manager)

    updaters.sort(key=age)
    first_by_version: dict[str, str] = {}
    remaining = len(updaters)
    for manager in updaters:
        if remaining <= MAX_UPDATE_MANAGERS:
            break
        versioned = managed.fields[manager]
        bucket = manager_identifier(_ANCIENT_CHANGES, UPDATE, versioned.api_version, "")
        if versioned.api_version not in first_by_version:
            first_by_version[versioned.api_version] = manager
            continue
        if bucket not in managed.fields:
            managed.fields[bucket] = managed.fields.pop(first_by_version[versioned.api_version])
        managed.fields[bucket] = VersionedSet(versioned.set.union(managed.fields[bucket].set),
                                              versioned.api_version, versioned.applied)
        del managed.fields[manager]
        remaining -= 1
        managed.times[bucket] = managed.times.get(manager)
    return managed


def _build_last_applied(applied: Mapping[str, Any]) -> str:
    """``buildLastApplied``: the applied object without the annotation, as
    ``unstructured.UnstructuredJSONScheme`` encodes it (a ``json.Encoder``: trailing newline)."""
    obj = json_copy(dict(applied))
    meta = obj.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        meta["annotations"].pop(LAST_APPLIED_ANNOTATION, None)
    return go_json(obj) + "\n"


def _set_last_applied(obj: dict[str, Any], value: str) -> None:
    """``SetLastApplied``: dropped instead when annotations would exceed their size limit."""
    annotations = obj["metadata"]["annotations"]
    annotations[LAST_APPLIED_ANNOTATION] = value
    if sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items()) > _ANNOTATIONS_MAX_BYTES:
        del annotations[LAST_APPLIED_ANNOTATION]


# --- request checks the handlers make before the field manager ---------------------------------


def check_name(obj: Mapping[str, Any], name: str, namespace: str) -> None:
    """``checkName`` (handlers/rest.go), run on the object a create, update or patch produced:
    its name must be the URL's, and a namespace, if set, the request's. Raises a 400."""
    meta = _metadata(obj)
    object_name = meta.get("name") or ""
    if not object_name:
        raise status.bad_request(f"the name of the object ({name} based on URL) was undeterminable: name must be provided")
    if object_name != name:
        raise status.bad_request(f"the name of the object ({object_name}) does not match the name on the URL ({name})")
    object_namespace = meta.get("namespace") or ""
    if namespace and object_namespace and object_namespace != namespace:
        # EnsureObjectNamespaceMatchesRequestNamespace runs first in every handler: its words.
        raise status.bad_request("the namespace of the provided object does not match the namespace sent on the request")
