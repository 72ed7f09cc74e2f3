"""CustomResourceDefinitions: defaulting, validation and status as apiextensions-apiserver does them.

Pure functions over ``apiextensions.k8s.io/v1`` CRD dicts, mirroring (paths under
``staging/src/k8s.io/apiextensions-apiserver/pkg/``):

* ``default_crd``: ``apis/apiextensions/v1/defaults.go`` (applied when a body is decoded);
* ``prepare_crd_create`` / ``prepare_crd_update``: ``registry/customresourcedefinition/strategy.go``
  ``PrepareForCreate`` / ``PrepareForUpdate`` (status owned by the server, ``storedVersions``);
* ``crd_errors`` / ``validate_crd``: ``apis/apiextensions/validation/validation.go``
  ``ValidateCustomResourceDefinition`` and ``...Update``, including the structural schema checks
  of ``apiserver/schema/validation.go`` and ``complete.go`` and the default checks of
  ``apiserver/schema/defaulting/validation.go``. Validation runs on the internal type, to which
  the v1 object converts with per-version schemas, subresources and printer columns moved to the
  spec when all versions agree (``v1/conversion.go``), hence kube's ``spec.validation.openAPIV3Schema``
  paths for single-version CRDs;
* ``crd_status``: what the naming controller (``controller/status/naming_controller.go``) and
  the establishing controller (``controller/establish/establishing_controller.go``) write.

Left out: CEL (``x-kubernetes-validations`` rules are neither compiled nor cost-checked),
``selectableFields``, webhook CA bundles, and ObjectMeta validation other than the name (the
registry's). Kube iterates Go maps when it walks schema properties, so the order of such errors
varies there; here it is the schema's. Bad values that are Go structs print as ``%#v`` does, with
a stand-in pointer address.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..apis.catalogue import ETCD_PREFIX, ResourceType, SubresourceType
from ..machinery.golang import go_quote, go_sharp_value
from ..machinery.metadata import now_rfc3339
from ..machinery.schema import Schema
from ..machinery.status import (
    FieldError,
    forbidden_error,
    invalid,
    invalid_error,
    not_supported_error,
    required_error,
)
from .structural import StructuralSchema, dns1035_label_problems, go_regexp_error

GROUP = "apiextensions.k8s.io"
KIND = "CustomResourceDefinition"
#: ``apiextensionsv1beta1.KubeAPIApprovedAnnotation``.
API_APPROVAL_ANNOTATION = "api-approved.kubernetes.io"

_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS1123_SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
_SCOPES = ("Cluster", "Namespaced")
_CONVERSION_STRATEGIES = ("None", "Webhook")
_CONVERSION_REVIEW_VERSIONS = ("v1", "v1beta1")
_PRINTER_COLUMN_TYPES = ("boolean", "date", "integer", "number", "string")
_PRINTER_COLUMN_FORMATS = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")
_OPENAPI_TYPES = ("array", "boolean", "integer", "number", "object", "string")
_META_FIELDS = ("metadata", "kind", "apiVersion")
_FAKE_POINTER = "0xc000010000"  # Go prints addresses of non-nil pointers; any will do

# The JSONSchemaProps fields in Go struct order, by JSON name, with whether the Go field is a
# plain value (zero when false or empty) rather than a pointer, slice or map (zero when absent):
# the root of a schema with a status subresource may only set some of them.
_SCHEMA_FIELDS: tuple[tuple[str, str, bool], ...] = (
    ("id", "ID", True), ("$schema", "Schema", True), ("$ref", "Ref", False),
    ("description", "Description", True), ("type", "Type", True), ("nullable", "Nullable", True),
    ("format", "Format", True), ("title", "Title", True), ("default", "Default", False),
    ("maximum", "Maximum", False), ("exclusiveMaximum", "ExclusiveMaximum", True),
    ("minimum", "Minimum", False), ("exclusiveMinimum", "ExclusiveMinimum", True),
    ("maxLength", "MaxLength", False), ("minLength", "MinLength", False), ("pattern", "Pattern", True),
    ("maxItems", "MaxItems", False), ("minItems", "MinItems", False), ("uniqueItems", "UniqueItems", True),
    ("multipleOf", "MultipleOf", False), ("enum", "Enum", False), ("maxProperties", "MaxProperties", False),
    ("minProperties", "MinProperties", False), ("required", "Required", False), ("items", "Items", False),
    ("allOf", "AllOf", False), ("oneOf", "OneOf", False), ("anyOf", "AnyOf", False), ("not", "Not", False),
    ("properties", "Properties", False), ("additionalProperties", "AdditionalProperties", False),
    ("patternProperties", "PatternProperties", False), ("dependencies", "Dependencies", False),
    ("additionalItems", "AdditionalItems", False), ("definitions", "Definitions", False),
    ("externalDocs", "ExternalDocs", False), ("example", "Example", False),
    ("x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields", False),
    ("x-kubernetes-embedded-resource", "XEmbeddedResource", True),
    ("x-kubernetes-int-or-string", "XIntOrString", True),
    ("x-kubernetes-list-map-keys", "XListMapKeys", False), ("x-kubernetes-list-type", "XListType", False),
    ("x-kubernetes-map-type", "XMapType", False), ("x-kubernetes-validations", "XValidations", False),
)
_ALLOWED_AT_STATUS_ROOT = (
    "Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
    "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems",
    "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
    "XPreserveUnknownFields", "XValidations")
#: Keys ``structuralschema.NewStructural`` refuses (its errors show only when nothing else failed).
_NON_STRUCTURAL_KEYWORDS = {
    "id": "id", "$schema": "schema", "$ref": "$ref", "patternProperties": "patternProperties",
    "dependencies": "dependencies", "additionalItems": "additionalItems", "definitions": "definitions"}
_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]

# Field paths are kube's ``field.Path`` strings, built by these.


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _key(path: str, key: str) -> str:
    return f"{path}[{key}]"


# --- names ---------------------------------------------------------------------------------------

def _dns1123_subdomain(value: str) -> list[str]:
    """``utilvalidation.IsDNS1123Subdomain``."""
    problems = ["must be no more than 253 characters"] if len(value) > 253 else []
    if not _DNS1123_SUBDOMAIN.match(value):
        problems.append(_DNS1123_SUBDOMAIN_MESSAGE)
    return problems


def _names_errors(names: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionNames`` (for ``spec.names`` and ``status.acceptedNames``)."""
    errors = []
    for name in ("plural", "singular"):
        value = names.get(name) or ""
        if value and (problems := dns1035_label_problems(value)):
            errors.append(invalid_error(_child(path, name), value, ",".join(problems)))
    for name in ("kind", "listKind"):
        value = names.get(name) or ""
        if value and (problems := dns1035_label_problems(value.lower())):
            errors.append(invalid_error(_child(path, name), value,
                                        "may have mixed case, but should otherwise match: " + ",".join(problems)))
    for index, short_name in enumerate(names.get("shortNames") or ()):
        if problems := dns1035_label_problems(short_name):
            errors.append(invalid_error(f"{path}.shortNames[{index}]", short_name, ",".join(problems)))
    if names.get("kind") and names.get("kind") == names.get("listKind"):
        errors.append(invalid_error(_child(path, "listKind"), names["listKind"], "kind and listKind may not be the same"))
    for index, category in enumerate(names.get("categories") or ()):
        if problems := dns1035_label_problems(category):
            errors.append(invalid_error(f"{path}.categories[{index}]", category, ",".join(problems)))
    return errors


# --- the v1 to internal conversion ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _InternalSpec:
    """What validation reads of ``Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...``:
    a per-version field all versions agree on moves to the spec (and is cleared per version)."""

    versions: tuple[Mapping[str, Any], ...]
    validation: Mapping[str, Any] | None
    subresources: Mapping[str, Any] | None
    columns: Sequence[Mapping[str, Any]] | None

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> _InternalSpec:
        versions = tuple(v if isinstance(v, Mapping) else {} for v in spec.get("versions") or ())
        hoisted = {name: bool(versions) and all(v.get(name) == versions[0].get(name) for v in versions)
                   for name in ("schema", "subresources", "additionalPrinterColumns")}
        if versions:
            versions = tuple({k: v for k, v in version.items() if not hoisted.get(k)} for version in versions)
        source = spec.get("versions") or [{}]
        return cls(
            versions=versions,
            validation=source[0].get("schema") if hoisted["schema"] else None,
            subresources=source[0].get("subresources") if hoisted["subresources"] else None,
            columns=source[0].get("additionalPrinterColumns") if hoisted["additionalPrinterColumns"] else None,
        )

    def subresources_of(self, version: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """``getSubresourcesForVersion``."""
        if any(v.get("subresources") is not None for v in self.versions):
            return version.get("subresources")
        return self.subresources

    def any_status(self) -> bool:
        """``hasAnyStatusEnabled``."""
        return any(_has_status(s) for s in (self.subresources, *(v.get("subresources") for v in self.versions)))


def _has_status(subresources: Mapping[str, Any] | None) -> bool:
    return bool(subresources) and subresources.get("status") is not None


def _go_versions(versions: Sequence[Mapping[str, Any]]) -> str:
    """``%#v`` of ``[]apiextensions.CustomResourceDefinitionVersion``, the bad value of the
    ``spec.versions`` errors."""
    def pointer(value: Any, type_name: str) -> str:
        return f"(*{type_name})({'nil' if value is None else _FAKE_POINTER})"

    def columns(value: Sequence[Mapping[str, Any]] | None) -> str:
        if value is None:
            return "[]apiextensions.CustomResourceColumnDefinition(nil)"
        return "[]apiextensions.CustomResourceColumnDefinition{" + ", ".join(
            f"apiextensions.CustomResourceColumnDefinition{{Name:{go_quote(c.get('name') or '')}, "
            f"Type:{go_quote(c.get('type') or '')}, Format:{go_quote(c.get('format') or '')}, "
            f"Description:{go_quote(c.get('description') or '')}, Priority:{c.get('priority') or 0}, "
            f"JSONPath:{go_quote(c.get('jsonPath') or '')}}}" for c in value) + "}"

    def selectable(value: Sequence[Mapping[str, Any]] | None) -> str:
        if value is None:
            return "[]apiextensions.SelectableField(nil)"
        return "[]apiextensions.SelectableField{" + ", ".join(
            f"apiextensions.SelectableField{{JSONPath:{go_quote(f.get('jsonPath') or '')}}}" for f in value) + "}"

    return "[]apiextensions.CustomResourceDefinitionVersion{" + ", ".join(
        f"apiextensions.CustomResourceDefinitionVersion{{Name:{go_quote(v.get('name') or '')}, "
        f"Served:{_go_bool(v.get('served'))}, Storage:{_go_bool(v.get('storage'))}, "
        f"Deprecated:{_go_bool(v.get('deprecated'))}, "
        f"DeprecationWarning:{pointer(v.get('deprecationWarning'), 'string')}, "
        f"Schema:{pointer(v.get('schema'), 'apiextensions.CustomResourceValidation')}, "
        f"Subresources:{pointer(v.get('subresources'), 'apiextensions.CustomResourceSubresources')}, "
        f"AdditionalPrinterColumns:{columns(v.get('additionalPrinterColumns'))}, "
        f"SelectableFields:{selectable(v.get('selectableFields'))}}}" for v in versions) + "}"


def _go_bool(value: Any) -> str:
    return "true" if value else "false"


def _invalid_go_value(path: str, go_text: str, detail: str) -> FieldError:
    """``field.Invalid`` of a bad value that Go prints with ``%#v`` (a struct or slice), given
    that rendering."""
    return path, "FieldValueInvalid", f"Invalid value: {go_text}: {detail}"


def _go_strings(values: Sequence[str] | None) -> str:
    """``%#v`` of a ``[]string``."""
    return "[]string(nil)" if values is None else "[]string{" + ", ".join(map(go_quote, values)) + "}"


# --- defaulting and the server-owned status -----------------------------------------------------

def default_crd(crd: dict[str, Any]) -> None:
    """``SetObjectDefaults_CustomResourceDefinition``, in place: ``names.singular`` (the lowercase
    kind), ``names.listKind`` (kind + ``List``), ``conversion.strategy: None``, a webhook
    service's port 443, and ``status.storedVersions`` (the storage version) when empty."""
    spec = crd.setdefault("spec", {})
    names = spec.setdefault("names", {})
    if not names.get("singular"):
        names["singular"] = (names.get("kind") or "").lower()
    if not names.get("listKind") and names.get("kind"):
        names["listKind"] = names["kind"] + "List"
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
    service = ((spec["conversion"].get("webhook") or {}).get("clientConfig") or {}).get("service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443
    status = crd.setdefault("status", {})
    if not status.get("storedVersions"):
        storage = _storage_version(spec)
        if storage is not None:
            status["storedVersions"] = [storage]


def _storage_version(spec: Mapping[str, Any]) -> str | None:
    return next((v.get("name") for v in spec.get("versions") or () if v.get("storage")), None)


def _add_stored_version(crd: dict[str, Any]) -> None:
    storage = _storage_version(crd["spec"])
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


def crd_status(
    crd: Mapping[str, Any],
    used_resources: Iterable[str] = (),
    used_kinds: Iterable[str] = (),
    now: str | None = None,
) -> dict[str, Any]:
    """The status once kube's controllers have seen a CRD (its ``storedVersions`` kept, so call
    ``prepare_crd_*`` first).

    ``used_resources`` and ``used_kinds`` are the names other CRDs of the group have been accepted
    with (their ``status.acceptedNames``: plural, singular, short names; kind, listKind), which
    ``accepted_names_of_group`` collects: kube's naming controller compares with those only, not
    with built-in resources. A name in use is not accepted (``PluralConflict``, ...: ``"foos" is
    already in use``), and then ``Established`` stays False (``NotAccepted``); otherwise the names
    are accepted (``NoConflicts``) and the CRD is established (``InitialNamesAccepted``). Condition
    transition times are kept while a condition's status does not change (``SetCRDCondition``).
    """
    status = copy.deepcopy(dict(crd.get("status") or {}))
    names, names_accepted = _accept_names(crd, frozenset(used_resources), frozenset(used_kinds))
    status["acceptedNames"] = names
    if names_accepted[0] == "True":
        established = ("True", "InitialNamesAccepted", "the initial names have been accepted")
    else:
        established = _condition_value(status, "Established") or ("False", "NotAccepted", "not all names are accepted")
    conditions = [dict(c) for c in status.get("conditions") or ()]
    timestamp = now or now_rfc3339()
    for condition_type, (value, reason, message) in (("NamesAccepted", names_accepted), ("Established", established)):
        _set_condition(conditions, condition_type, value, reason, message, timestamp)
    status["conditions"] = conditions
    status.setdefault("storedVersions", [])
    return status


def accepted_names_of_group(crds: Iterable[Mapping[str, Any]], group: str, excluding: str = "") -> tuple[set[str], set[str]]:
    """``getAcceptedNamesForGroup``: the resource names and kinds the group's other CRDs hold."""
    resources: set[str] = set()
    kinds: set[str] = set()
    for other in crds:
        if (other.get("spec") or {}).get("group") != group or (other.get("metadata") or {}).get("name") == excluding:
            continue
        accepted = (other.get("status") or {}).get("acceptedNames") or {}
        resources.update((accepted.get("plural") or "", accepted.get("singular") or "", *(accepted.get("shortNames") or ())))
        kinds.update((accepted.get("kind") or "", accepted.get("listKind") or ""))
    return resources, kinds


def _accept_names(crd: Mapping[str, Any], used_resources: frozenset[str], used_kinds: frozenset[str]
                  ) -> tuple[dict[str, Any], tuple[str, str, str]]:
    """``calculateNamesAndConditions``: each requested name is accepted unless another CRD
    holds it (the last conflict found is the one reported)."""
    requested = (crd.get("spec") or {}).get("names") or {}
    accepted = dict((crd.get("status") or {}).get("acceptedNames") or {})
    names = dict(accepted)
    conflict: tuple[str, str, str] | None = None

    def fresh(name: str, used: frozenset[str], reason: str, current: str = "") -> bool:
        nonlocal conflict
        if name != current and name in used:
            conflict = ("False", reason, f"{go_quote(name)} is already in use")
            return False
        return True

    for name, used, reason in (("plural", used_resources, "PluralConflict"),
                               ("singular", used_resources, "SingularConflict")):
        if fresh(requested.get(name) or "", used, reason, accepted.get(name) or ""):
            names[name] = requested.get(name) or ""
    requested_short = list(requested.get("shortNames") or ())
    if requested_short != list(accepted.get("shortNames") or ()):
        held = set(accepted.get("shortNames") or ())
        taken = [s for s in requested_short if s not in held and s in used_resources]
        if taken:  # utilerrors.NewAggregate: one message bare, several as [a, b]
            messages = [f"{go_quote(s)} is already in use" for s in taken]
            conflict = ("False", "ShortNamesConflict", messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]")
        else:
            names["shortNames"] = requested_short
    for name, reason in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
        if fresh(requested.get(name) or "", used_kinds, reason, accepted.get(name) or ""):
            names[name] = requested.get(name) or ""
    if requested.get("categories") is not None:
        names["categories"] = list(requested["categories"])
    else:
        names.pop("categories", None)
    return _accepted_names_json(names), conflict or ("True", "NoConflicts", "no conflicts found")


def _accepted_names_json(names: Mapping[str, Any]) -> dict[str, Any]:
    """``CustomResourceDefinitionNames`` as kube serialises it: plural and kind always, the rest
    when set."""
    out: dict[str, Any] = {"plural": names.get("plural") or ""}
    for name in ("singular", "shortNames"):
        if names.get(name):
            out[name] = names[name]
    out["kind"] = names.get("kind") or ""
    for name in ("listKind", "categories"):
        if names.get(name):
            out[name] = names[name]
    return out


def _condition_value(status: Mapping[str, Any], condition_type: str) -> tuple[str, str, str] | None:
    for condition in status.get("conditions") or ():
        if condition.get("type") == condition_type:
            return condition.get("status", ""), condition.get("reason", ""), condition.get("message", "")
    return None


def _set_condition(conditions: list[dict[str, Any]], condition_type: str, value: str, reason: str,
                   message: str, now: str) -> None:
    """``SetCRDCondition``."""
    for condition in conditions:
        if condition.get("type") == condition_type:
            if condition.get("status") != value or not condition.get("lastTransitionTime"):
                condition["lastTransitionTime"] = now
            condition.update(status=value, reason=reason, message=message)
            return
    conditions.append({"type": condition_type, "status": value, "lastTransitionTime": now,
                       "reason": reason, "message": message})


# --- validation ----------------------------------------------------------------------------------

def validate_crd(crd: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> None:
    """Raise kube's 422 when ``crd`` (defaulted and prepared) is invalid, as a create
    (``old`` None) or as an update of ``old``."""
    errors = crd_errors(crd, old)
    if errors:
        raise invalid(GROUP, KIND, (crd.get("metadata") or {}).get("name") or "", errors)


def crd_errors(crd: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> list[FieldError]:
    """``ValidateCustomResourceDefinition`` (``old`` None) or ``ValidateCustomResourceDefinitionUpdate``."""
    spec = crd.get("spec") or {}
    status = crd.get("status") or {}
    errors = _object_meta_errors(crd) if old is None else []
    old_spec = (old or {}).get("spec")
    errors += _spec_errors(spec, require_schemas=old_spec is None or _all_versions_have_schemas(old_spec))
    if old is not None:
        errors += _spec_update_errors(spec, old_spec or {}, established=_condition_value(old.get("status") or {}, "Established"))
    errors += _names_errors(status.get("acceptedNames") or {}, "status.acceptedNames")
    errors += _stored_versions_errors(status.get("storedVersions") or [], spec.get("versions") or [])
    errors += _api_approval_errors(crd, old)
    if spec.get("preserveUnknownFields") and not (old_spec or {}).get("preserveUnknownFields"):
        errors.append(invalid_error("spec.preserveUnknownFields", True,
                                    "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
    return errors


def _object_meta_errors(crd: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateObjectMeta``'s name checks with the CRD's name function: a DNS subdomain equal
    to ``<plural>.<group>``."""
    metadata = crd.get("metadata") or {}
    spec = crd.get("spec") or {}
    required_name = f"{(spec.get('names') or {}).get('plural') or ''}.{spec.get('group') or ''}"

    def problems(name: str, prefix: bool) -> list[str]:
        masked = name[:-1] + "a" if prefix and name.endswith("-") else name  # MaskTrailingDash
        found = _dns1123_subdomain(masked)
        if name != required_name:
            found.append('must be spec.names.plural+"."+spec.group')
        return found

    errors = []
    if generate_name := metadata.get("generateName"):
        errors += [invalid_error("metadata.generateName", generate_name, p) for p in problems(generate_name, True)]
    name = metadata.get("name") or ""
    if not name:
        errors.append(required_error("metadata.name", "name or generateName is required"))
    else:
        errors += [invalid_error("metadata.name", name, p) for p in problems(name, False)]
    return errors


def _all_versions_have_schemas(spec: Mapping[str, Any]) -> bool:
    """``allVersionsSpecifyOpenAPISchema``: what an update keeps requiring schemas by."""
    return all((v.get("schema") or {}).get("openAPIV3Schema") is not None for v in spec.get("versions") or ())


def _spec_errors(spec: Mapping[str, Any], require_schemas: bool) -> list[FieldError]:
    """``validateCustomResourceDefinitionSpec``."""
    errors: list[FieldError] = []
    group = spec.get("group") or ""
    if not group:
        errors.append(required_error("spec.group"))
    elif problems := _dns1123_subdomain(group):
        errors.append(invalid_error("spec.group", group, ",".join(problems)))
    elif "." not in group:
        errors.append(invalid_error("spec.group", group, "should be a domain with at least one dot"))
    errors += _enum_errors("spec.scope", spec.get("scope") or "", _SCOPES)

    internal = _InternalSpec.of(spec)
    preserve_unknown = bool(spec.get("preserveUnknownFields"))
    has_top_schema = (internal.validation or {}).get("openAPIV3Schema") is not None
    if not has_top_schema:
        for index, version in enumerate(internal.versions):
            if (version.get("schema") or {}).get("openAPIV3Schema") is None:
                if require_schemas:
                    errors.append(required_error(f"spec.versions[{index}].schema.openAPIV3Schema", "schemas are required"))
                elif not preserve_unknown and version.get("served"):
                    errors.append(required_error(f"spec.versions[{index}].schema.openAPIV3Schema", "because otherwise all fields are pruned"))
    if preserve_unknown and _spec_has_defaults(spec):
        errors.append(invalid_error("spec.preserveUnknownFields", True, "must be false in order to use defaults in the schema"))

    names_seen: set[str] = set()
    unique_names = True
    for index, version in enumerate(internal.versions):
        name = version.get("name") or ""
        unique_names &= name not in names_seen
        names_seen.add(name)
        path = f"spec.versions[{index}]"
        if problems := dns1035_label_problems(name):
            errors.append(invalid_error(f"{path}.name", name, ",".join(problems)))
        errors += _version_errors(version, path, _has_status(internal.subresources_of(version)))
    versions_value = _go_versions(internal.versions)
    if not unique_names:
        errors.append(_invalid_go_value("spec.versions", versions_value, "must contain unique version names"))
    if sum(bool(v.get("storage")) for v in internal.versions) != 1:
        errors.append(_invalid_go_value("spec.versions", versions_value, "must have exactly one version marked as storage version"))
    if internal.versions and (problems := dns1035_label_problems(internal.versions[0].get("name") or "")):
        errors.append(invalid_error("spec.version", internal.versions[0].get("name") or "", ",".join(problems)))

    names = spec.get("names") or {}
    for name in ("plural", "singular", "kind", "listKind"):
        if not names.get(name):
            errors.append(required_error(f"spec.names.{name}"))
    errors += _names_errors(names, "spec.names")
    errors += _validation_errors(internal.validation, internal.any_status(), "spec.validation")
    errors += _subresources_errors(internal.subresources, "spec.subresources")
    for index, column in enumerate(internal.columns or ()):
        errors += _column_errors(column, f"spec.additionalPrinterColumns[{index}]")
    conversion = spec.get("conversion")
    if conversion and conversion.get("strategy") != "None" and preserve_unknown:
        errors.append(invalid_error("spec.conversion.strategy", conversion.get("strategy") or "",
                                    "must be None if spec.preserveUnknownFields is true"))
    errors += _conversion_errors(conversion, "spec.conversion")
    return errors


def _enum_errors(path: str, value: str, accepted: Sequence[str]) -> list[FieldError]:
    """``validateEnumStrings`` (required)."""
    if not value:
        return [required_error(path)]
    return [] if value in accepted else [not_supported_error(path, value, accepted)]


def _spec_has_defaults(spec: Mapping[str, Any]) -> bool:
    return any(_schema_has((v.get("schema") or {}).get("openAPIV3Schema"), lambda s: s.get("default") is not None)
               for v in spec.get("versions") or ())


def _schema_has(schema: Any, predicate: Callable[[Mapping[str, Any]], bool]) -> bool:
    """``SchemaHas``: whether any node of a schema satisfies ``predicate``."""
    return isinstance(schema, Mapping) and any(map(predicate, _all_nodes(schema)))


def _version_errors(version: Mapping[str, Any], path: str, status_enabled: bool) -> list[FieldError]:
    """``validateCustomResourceDefinitionVersion`` (without selectable fields)."""
    errors = []
    warning = version.get("deprecationWarning")
    if not version.get("deprecated") and warning is not None:
        errors.append(invalid_error(f"{path}.deprecationWarning", warning, "can only be set for deprecated versions"))
    elif warning is not None:
        if len(warning.encode()) > 256:
            errors.append(invalid_error(f"{path}.deprecationWarning", warning, "must be <= 256 characters long"))
        if not warning:
            errors.append(invalid_error(f"{path}.deprecationWarning", warning, "must not be an empty string"))
        for index, char in enumerate(warning):
            if not char.isprintable():
                errors.append(invalid_error(f"{path}.deprecationWarning", warning,
                                            f"must only contain printable UTF-8 characters; non-printable character found at index {len(warning[:index].encode())}"))
                break
    errors += _validation_errors(version.get("schema"), status_enabled, f"{path}.schema")
    errors += _subresources_errors(version.get("subresources"), f"{path}.subresources")
    for index, column in enumerate(version.get("additionalPrinterColumns") or ()):
        errors += _column_errors(column, f"{path}.additionalPrinterColumns[{index}]")
    return errors


def _simple_json_path_errors(value: str, path: str) -> list[FieldError]:
    """``validateSimpleJSONPath``."""
    if not value:
        return [invalid_error(path, value, "must not be empty")]
    if not value.startswith("."):
        return [invalid_error(path, value, "must be a simple json path starting with .")]
    return []


def _subresources_errors(subresources: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionSubresources``: the scale paths."""
    scale = (subresources or {}).get("scale")
    if scale is None:
        return []
    errors = []
    for name, prefix, where in (("specReplicasPath", ".spec.", ".spec"), ("statusReplicasPath", ".status.", ".status")):
        value = scale.get(name) or ""
        field_path = f"{path}.scale.{name}"
        if not value:
            errors.append(required_error(field_path))
        elif problems := _simple_json_path_errors(value, field_path):
            errors += problems
        elif not value.startswith(prefix):
            errors.append(invalid_error(field_path, value, f"should be a json path under {where}"))
    selector = scale.get("labelSelectorPath")
    if selector:
        field_path = f"{path}.scale.labelSelectorPath"
        if problems := _simple_json_path_errors(selector, field_path):
            errors += problems
        elif not selector.startswith((".spec.", ".status.")):
            errors.append(invalid_error(field_path, selector, "should be a json path under either .spec or .status"))
    return errors


def _column_errors(column: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateCustomResourceColumnDefinition``."""
    errors = []
    if not column.get("name"):
        errors.append(required_error(f"{path}.name"))
    column_type = column.get("type") or ""
    types = "must be one of " + ",".join(_PRINTER_COLUMN_TYPES)
    if not column_type:
        errors.append(required_error(f"{path}.type", types))
    elif column_type not in _PRINTER_COLUMN_TYPES:
        errors.append(invalid_error(f"{path}.type", column_type, types))
    column_format = column.get("format") or ""
    if column_format and column_format not in _PRINTER_COLUMN_FORMATS:
        errors.append(invalid_error(f"{path}.format", column_format, "must be one of " + ",".join(_PRINTER_COLUMN_FORMATS)))
    json_path = column.get("jsonPath") or ""
    if not json_path:
        errors.append(required_error(f"{path}.JSONPath"))
    else:
        errors += _simple_json_path_errors(json_path, f"{path}.JSONPath")
    return errors


def _conversion_errors(conversion: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """``validateCustomResourceConversion`` (the webhook's URL and service only in outline)."""
    if conversion is None:
        return []
    strategy = conversion.get("strategy") or ""
    errors = _enum_errors(f"{path}.strategy", strategy, _CONVERSION_STRATEGIES)
    webhook = conversion.get("webhook") or {}
    client_config = webhook.get("clientConfig")
    review_versions = webhook.get("conversionReviewVersions") or []
    if strategy != "Webhook":
        if client_config is not None:
            errors.append(forbidden_error(f"{path}.webhookClientConfig", "should not be set when strategy is not set to Webhook"))
        if review_versions:
            errors.append(forbidden_error(f"{path}.conversionReviewVersions", "should not be set when strategy is not set to Webhook"))
        return errors
    if client_config is None:
        errors.append(required_error(f"{path}.webhookClientConfig", "required when strategy is set to Webhook"))
    elif (client_config.get("url") is None) == (client_config.get("service") is None):
        errors.append(required_error(f"{path}.webhookClientConfig", "exactly one of url or service is required"))
    elif client_config.get("service") is not None:
        service = client_config["service"]
        # kube passes the service's name and namespace to ValidateWebhookService(namespace, name)
        # swapped, so a missing name is reported as a missing namespace and the other way round.
        for name, reported_as in (("namespace", "name"), ("name", "namespace")):
            if not service.get(name):
                errors.append(required_error(f"{path}.webhookClientConfig.service.{reported_as}", f"service {reported_as} is required"))
    elif not client_config["url"].startswith("https://"):
        errors.append(invalid_error(f"{path}.webhookClientConfig.url", client_config["url"].partition(":")[0],
                                    "'https' is the only allowed URL scheme"))
    review_path = f"{path}.conversionReviewVersions"
    if not review_versions:
        errors.append(required_error(review_path))
        return errors
    seen: set[str] = set()
    for index, version in enumerate(review_versions):
        if version in seen:
            errors.append(invalid_error(f"{review_path}[{index}]", version, "duplicate version"))
            continue
        seen.add(version)
        errors += [invalid_error(f"{review_path}[{index}]", version, p) for p in dns1035_label_problems(version)]
    if not seen & set(_CONVERSION_REVIEW_VERSIONS):
        errors.append(_invalid_go_value(review_path, _go_strings(review_versions),
                                    "must include at least one of " + ", ".join(_CONVERSION_REVIEW_VERSIONS)))
    return errors


def _spec_update_errors(spec: Mapping[str, Any], old_spec: Mapping[str, Any],
                        established: tuple[str, str, str] | None) -> list[FieldError]:
    """``validateCustomResourceDefinitionSpecUpdate``'s immutable fields: scope and kind once
    established, group and plural always."""
    immutable = [("spec.group", ("group",)), ("spec.names.plural", ("names", "plural"))]
    if established is not None and established[0] == "True":
        immutable[:0] = [("spec.scope", ("scope",)), ("spec.names.kind", ("names", "kind"))]
    errors = []
    for path, keys in immutable:
        new_value, old_value = _dig(spec, keys), _dig(old_spec, keys)
        if new_value != old_value:
            errors.append(invalid_error(path, new_value, "field is immutable"))
    return errors


def _dig(obj: Mapping[str, Any], keys: Sequence[str]) -> str:
    for key in keys[:-1]:
        obj = obj.get(key) or {}
    return obj.get(keys[-1]) or ""


def _stored_versions_errors(stored: Sequence[str], versions: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionStoredVersions``."""
    path = "status.storedVersions"
    if not stored:
        return [_invalid_go_value(path, _go_strings(None), "must have at least one stored version")]
    errors = []
    remaining = {name: index for index, name in enumerate(stored)}
    for version in versions:
        name = version.get("name") or ""
        if version.get("storage") and name not in remaining:
            errors.append(_invalid_go_value(path, _go_strings(stored), f"must have the storage version {name}"))
        remaining.pop(name, None)
    errors += [invalid_error(f"{path}[{index}]", name, "must appear in spec.versions") for name, index in remaining.items()]
    return errors


def _api_approval_errors(crd: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[FieldError]:
    """``validateAPIApproval``: groups under k8s.io and kubernetes.io need the approval annotation."""
    group = (crd.get("spec") or {}).get("group") or ""
    if not (group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))):
        return []
    state, reason, annotation = _approval_state(crd)
    if old is not None and _approval_state(old)[0] == state:
        return []
    path = f"metadata.annotations[{API_APPROVAL_ANNOTATION}]"
    if state == "missing":
        return [required_error(path, reason)]
    if state == "invalid":
        return [invalid_error(path, annotation, reason)]
    return []


def _approval_state(crd: Mapping[str, Any]) -> tuple[str, str, str]:
    """``GetAPIApprovalState``: (state, reason, annotation)."""
    annotation = ((crd.get("metadata") or {}).get("annotations") or {}).get(API_APPROVAL_ANNOTATION) or ""
    if not annotation:
        return ("missing", f"protected groups must have approval annotation {go_quote(API_APPROVAL_ANNOTATION)}, "
                "see https://github.com/kubernetes/enhancements/pull/1111", annotation)
    if annotation.startswith("unapproved"):
        return "bypassed", f"not approved: {go_quote(annotation)}", annotation
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]+", annotation):
        return "approved", f"approved in {annotation}", annotation
    return ("invalid", f"protected groups must have approval annotation {go_quote(API_APPROVAL_ANNOTATION)} with either "
            'a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111', annotation)


# --- the schema of a version ---------------------------------------------------------------------

def _validation_errors(validation: Mapping[str, Any] | None, status_enabled: bool, path: str) -> list[FieldError]:
    """``validateCustomResourceDefinitionValidation``: the root's restrictions, then the
    structural checks (or, when those pass, the defaults'), then the per-node OpenAPI checks."""
    schema = (validation or {}).get("openAPIV3Schema")
    if not isinstance(schema, Mapping):
        return []
    schema_path = f"{path}.openAPIV3Schema"
    errors = _status_root_errors(schema, schema_path) if status_enabled else []
    if schema.get("nullable"):
        errors.append(forbidden_error(f"{schema_path}.nullable", "nullable cannot be true at the root"))
    unsupported = _non_structural_keyword(schema)
    if unsupported is None:
        structural = sorted(_structural_errors(schema, schema_path), key=lambda e: f"{e[0]}: {e[2]}")
        errors += structural or _default_errors(schema, schema_path)
    errors += _openapi_errors(schema, schema_path, _Context(), is_root=True)
    if not errors and unsupported is not None:
        errors.append(invalid_error(schema_path, "", unsupported))
    return errors


def _status_root_errors(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    """With a status subresource the root may only use some keywords (status's schema is cut
    out of it); the first other field set is reported, in Go struct order."""
    for key, go_name, plain in _SCHEMA_FIELDS:
        value = schema.get(key)
        if value is None or (plain and not value):
            continue
        if go_name == "Type":
            if value != "object":
                return [invalid_error(f"{path}.type", value,
                                      'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')]
            continue
        if go_name not in _ALLOWED_AT_STATUS_ROOT:
            return [_invalid_go_value(path, _go_schema(schema),
                                  f"only [{' '.join(_ALLOWED_AT_STATUS_ROOT)}] fields are allowed at the root of the schema if the status subresource is enabled")]
    return []


#: How ``%#v`` prints each JSONSchemaProps field's Go type when the field is absent.
_SCHEMA_FIELD_TYPES = {
    "Ref": "*string", "Default": "*apiextensions.JSON", "Maximum": "*float64", "Minimum": "*float64",
    "MaxLength": "*int64", "MinLength": "*int64", "MaxItems": "*int64", "MinItems": "*int64",
    "MultipleOf": "*float64", "Enum": "[]apiextensions.JSON", "MaxProperties": "*int64",
    "MinProperties": "*int64", "Required": "[]string", "Items": "*apiextensions.JSONSchemaPropsOrArray",
    "AllOf": "[]apiextensions.JSONSchemaProps", "OneOf": "[]apiextensions.JSONSchemaProps",
    "AnyOf": "[]apiextensions.JSONSchemaProps", "Not": "*apiextensions.JSONSchemaProps",
    "Properties": "map[string]apiextensions.JSONSchemaProps",
    "AdditionalProperties": "*apiextensions.JSONSchemaPropsOrBool",
    "PatternProperties": "map[string]apiextensions.JSONSchemaProps",
    "Dependencies": "apiextensions.JSONSchemaDependencies",
    "AdditionalItems": "*apiextensions.JSONSchemaPropsOrBool", "Definitions": "apiextensions.JSONSchemaDefinitions",
    "ExternalDocs": "*apiextensions.ExternalDocumentation", "Example": "*apiextensions.JSON",
    "XPreserveUnknownFields": "*bool", "XListMapKeys": "[]string", "XListType": "*string",
    "XMapType": "*string", "XValidations": "apiextensions.ValidationRules",
}


def _go_schema(schema: Mapping[str, Any]) -> str:
    """``%#v`` of an ``apiextensions.JSONSchemaProps`` (pointers as a stand-in address)."""
    def field_text(key: str, go_name: str, plain: bool) -> str:
        value = schema.get(key)
        if plain:
            return go_sharp_value(value) if value is not None else ('false' if go_name in _GO_BOOLS else '""')
        go_type = _SCHEMA_FIELD_TYPES[go_name]
        if value is None:
            return f"({go_type})(nil)" if go_type.startswith("*") else f"{go_type}(nil)"
        if go_type.startswith("*"):
            return f"({go_type})({_FAKE_POINTER})"
        if go_name in ("AllOf", "OneOf", "AnyOf"):
            return f"{go_type}{{" + ", ".join(map(_go_schema, value)) + "}"
        if go_type.startswith("map") or go_name in ("Dependencies", "Definitions"):
            return f"{go_type}{{" + ", ".join(f"{go_quote(k)}:{_go_schema(value[k])}" for k in sorted(value)) + "}"
        if go_name == "XValidations":
            return f"{go_type}{{" + ", ".join(
                f"apiextensions.ValidationRule{{Rule:{go_quote(r.get('rule') or '')}, Message:{go_quote(r.get('message') or '')}, "
                f"MessageExpression:{go_quote(r.get('messageExpression') or '')}, "
                f"Reason:(*apiextensions.FieldValueErrorReason)({'nil' if r.get('reason') is None else _FAKE_POINTER}), "
                f"FieldPath:{go_quote(r.get('fieldPath') or '')}, "
                f"OptionalOldSelf:(*bool)({'nil' if r.get('optionalOldSelf') is None else _FAKE_POINTER})}}" for r in value) + "}"
        return f"{go_type}{{" + ", ".join(map(go_sharp_value, value)) + "}"

    return "apiextensions.JSONSchemaProps{" + ", ".join(
        f"{go_name}:{field_text(key, go_name, plain)}" for key, go_name, plain in _SCHEMA_FIELDS) + "}"


_GO_BOOLS = frozenset(("Nullable", "ExclusiveMaximum", "ExclusiveMinimum", "UniqueItems", "XEmbeddedResource", "XIntOrString"))


def _non_structural_keyword(schema: Mapping[str, Any]) -> str | None:
    """The error ``NewStructural`` fails with, if any (keywords a structural schema cannot have)."""
    for node in _all_nodes(schema):
        if isinstance(node.get("items"), list):
            return "OpenAPIV3Schema 'items' must be a schema, but is an array"
        for key, name in _NON_STRUCTURAL_KEYWORDS.items():
            if node.get(key):
                return f"OpenAPIV3Schema {name!r} is not supported"
    return None


def _all_nodes(schema: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    yield schema
    children = [schema.get("items"), schema.get("additionalProperties"), schema.get("not"),
                *(schema.get("properties") or {}).values(), *(schema.get("allOf") or ()),
                *(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]
    for child in children:
        if isinstance(child, Mapping):
            yield from _all_nodes(child)


# structuralschema.ValidateStructural: invariants of the structural part, then of the value
# validations nested in allOf/anyOf/oneOf/not, then their completeness.

_ROOT, _ITEM, _FIELD = "root", "item", "field"
_MISSING_TYPE = {_ROOT: "must not be empty at the root", _ITEM: "must not be empty for specified array items",
                 _FIELD: "must not be empty for specified object fields"}


def _structural_errors(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    return _invariant_errors(schema, _ROOT, path) + _completeness_errors(schema, schema, path, path)


def _invariant_errors(node: Mapping[str, Any], level: str, path: str) -> list[FieldError]:
    """``validateStructuralInvariants``."""
    errors: list[FieldError] = []
    node_type = node.get("type") or ""
    items = node.get("items")
    if node_type == "array" and items is None:
        errors.append(required_error(f"{path}.items", "must be specified"))
    if isinstance(items, Mapping):
        errors += _invariant_errors(items, _ITEM, f"{path}.items")
    for name, sub in (node.get("properties") or {}).items():
        errors += _invariant_errors(sub, _FIELD, _key(f"{path}.properties", name))
    extra = node.get("additionalProperties")
    if extra is not None:
        if level == _ROOT:
            errors.append(forbidden_error(f"{path}.additionalProperties", "must not be used at the root"))
        if isinstance(extra, Mapping):
            errors += _invariant_errors(extra, _FIELD, f"{path}.additionalProperties")
    int_or_string = bool(node.get("x-kubernetes-int-or-string"))
    preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
    embedded = bool(node.get("x-kubernetes-embedded-resource"))
    if int_or_string and preserve:
        errors.append(invalid_error(f"{path}.x-kubernetes-preserve-unknown-fields", True, "must be false if x-kubernetes-int-or-string is true"))
    if int_or_string and embedded:
        errors.append(invalid_error(f"{path}.x-kubernetes-embedded-resource", True, "must be false if x-kubernetes-int-or-string is true"))
    any_of_is_int_or_string = node.get("anyOf") == _INT_OR_STRING_ANY_OF
    all_of = node.get("allOf") or []
    first_all_of_is_int_or_string = bool(all_of) and isinstance(all_of[0], Mapping) and all_of[0].get("anyOf") == _INT_OR_STRING_ANY_OF
    errors += _value_validation_errors(node, any_of_is_int_or_string, first_all_of_is_int_or_string, path)
    if embedded and node_type != "object":
        message = "must be object if x-kubernetes-embedded-resource is true"
        errors.append(invalid_error(f"{path}.type", node_type, message) if node_type else required_error(f"{path}.type", message))
    elif not node_type and not int_or_string and not preserve:
        errors.append(required_error(f"{path}.type", _MISSING_TYPE[level]))
    if embedded and extra is not None:
        errors.append(forbidden_error(f"{path}.additionalProperties", "must not be used if x-kubernetes-embedded-resource is set"))
    if level == _ROOT and node_type and node_type != "object":
        errors.append(invalid_error(f"{path}.type", node_type, "must be object at the root"))
    properties = node.get("properties") or {}
    check_metadata = level == _ROOT or embedded
    for name in ("kind", "apiVersion"):
        if check_metadata and name in properties and properties[name].get("type") != "string":
            errors.append(invalid_error(f"{_key(f'{path}.properties', name)}.type", properties[name].get("type") or "", "must be string"))
    if "metadata" in properties:
        errors += _metadata_invariant_errors(properties["metadata"], check_metadata, level, _key(f"{path}.properties", "metadata"))
    if embedded and not preserve and not properties:
        errors.append(required_error(f"{path}.properties",
                                     "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
    return errors


def _metadata_invariant_errors(metadata: Mapping[str, Any], check_metadata: bool, level: str, path: str) -> list[FieldError]:
    """``validateStructuralMetadataInvariants``: at the root, metadata may only restrict name
    and generateName (its type and default are checked elsewhere)."""
    errors = []
    if check_metadata and metadata.get("type") != "object":
        errors.append(invalid_error(f"{path}.type", metadata.get("type") or "", "must be object"))
    if level == _ROOT:
        properties = set(metadata.get("properties") or {})
        others = set(metadata) - {"type", "default", "properties", "example", "externalDocs"}
        if others or not properties <= {"name", "generateName"}:
            errors.append(forbidden_error(path, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
    return errors


def _value_validation_errors(node: Mapping[str, Any], skip_any_of: bool, skip_first_all_of_any_of: bool, path: str) -> list[FieldError]:
    """``validateValueValidation``."""
    errors: list[FieldError] = []
    if not skip_any_of:
        for index, sub in enumerate(node.get("anyOf") or ()):
            errors += _nested_value_validation_errors(sub, False, f"{path}.anyOf[{index}]")
    for index, sub in enumerate(node.get("allOf") or ()):
        errors += _nested_value_validation_errors(sub, skip_first_all_of_any_of and index == 0, f"{path}.allOf[{index}]")
    for index, sub in enumerate(node.get("oneOf") or ()):
        errors += _nested_value_validation_errors(sub, False, f"{path}.oneOf[{index}]")
    if isinstance(node.get("not"), Mapping):
        errors += _nested_value_validation_errors(node["not"], False, f"{path}.not")
    pattern = node.get("pattern")
    if pattern and (problem := go_regexp_error(pattern)):
        errors.append(invalid_error(f"{path}.pattern", pattern, f"must be a valid regular expression, but isn't: {problem}"))
    return errors


#: What a value validation nested in allOf/anyOf/oneOf/not may not say, and how kube words it.
_NESTED_FORBIDDEN = (
    ("type", "must be empty to be structural"), ("additionalProperties", "must be undefined to be structural"),
    ("default", "must be undefined to be structural"), ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"), ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)


def _nested_value_validation_errors(node: Mapping[str, Any], skip_any_of: bool, path: str) -> list[FieldError]:
    """``validateNestedValueValidation``."""
    errors = _value_validation_errors(node, skip_any_of, False, path)
    if isinstance(node.get("items"), Mapping):
        errors += _nested_value_validation_errors(node["items"], False, f"{path}.items")
    for name, sub in (node.get("properties") or {}).items():
        errors += _nested_value_validation_errors(sub, False, _key(f"{path}.properties", name))
    for key, message in _NESTED_FORBIDDEN:
        value = node.get(key)
        if value not in (None, False, "", [], {}) or (key == "additionalProperties" and value is True):
            errors.append(forbidden_error(f"{path}.{key}", message))
    if "metadata" in (node.get("properties") or {}):
        errors.append(forbidden_error(_key(f"{path}.properties", "metadata"), "must not be specified in a nested context"))
    return errors


def _completeness_errors(value_node: Mapping[str, Any], node: Mapping[str, Any] | None, node_path: str, value_path: str) -> list[FieldError]:
    """``validateValueValidationCompleteness``: what allOf/anyOf/oneOf/not under the root
    constrain must be specified structurally too."""
    errors = []
    nested = [(value_node.get("not"), f"{value_path}.not")] if isinstance(value_node.get("not"), Mapping) else []
    for keyword in ("allOf", "anyOf", "oneOf"):
        nested += [(sub, f"{value_path}.{keyword}[{i}]") for i, sub in enumerate(value_node.get(keyword) or ())]
    for sub, sub_path in nested:
        errors += _nested_completeness_errors(sub, node, node_path, sub_path)
    return errors


def _nested_completeness_errors(value_node: Mapping[str, Any], node: Mapping[str, Any] | None, node_path: str, value_path: str) -> list[FieldError]:
    """``validateNestedValueValidationCompleteness``."""
    if node is None:
        return [required_error(node_path, f"because it is defined in {value_path}")]
    errors = _completeness_errors(value_node, node, node_path, value_path)
    if isinstance(value_node.get("items"), Mapping):
        items = node.get("items") if isinstance(node.get("items"), Mapping) else None
        errors += _nested_completeness_errors(value_node["items"], items, f"{node_path}.items", f"{value_path}.items")
    properties = node.get("properties") or {}
    for name, sub in (value_node.get("properties") or {}).items():
        sub_value_path = _key(f"{value_path}.properties", name)
        if name not in properties:
            errors.append(required_error(_key(f"{node_path}.properties", name), f"because it is defined in {sub_value_path}"))
        else:
            errors += _nested_completeness_errors(sub, properties[name], _key(f"{node_path}.properties", name), sub_value_path)
    return errors


def _default_errors(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    """``structuraldefaulting.ValidateDefaults``: each default must be pruned already and valid
    against its own schema (defaults inside embedded resources' metadata are not checked here)."""
    return _node_default_errors(schema, path, resource_root=True, inside_meta=False)


def _node_default_errors(node: Mapping[str, Any], path: str, resource_root: bool, inside_meta: bool) -> list[FieldError]:
    embedded = resource_root or bool(node.get("x-kubernetes-embedded-resource"))
    if node.get("x-kubernetes-embedded-resource"):
        inside_meta = False
    errors: list[FieldError] = []
    if node.get("default") is not None and not inside_meta:
        default = node["default"]
        compiled = StructuralSchema(node)
        pruned = copy.deepcopy(default)
        compiled.prune(pruned, resource_root=embedded)
        if pruned != default:
            errors.append(invalid_error(f"{path}.default", default, "must not have unknown fields"))
        errors += compiled.validate_value(default, f"{path}.default")
    if isinstance(node.get("items"), Mapping):
        errors += _node_default_errors(node["items"], f"{path}.items", False, inside_meta)
    for name, sub in (node.get("properties") or {}).items():
        errors += _node_default_errors(sub, _key(f"{path}.properties", name), False,
                                       inside_meta or (embedded and name in _META_FIELDS))
    return errors


@dataclass(frozen=True, slots=True)
class _Context:
    """``specStandardValidatorV3``'s state while walking a schema."""

    defaults_forbidden_because: str | None = None
    inside_resource_meta: bool = False


def _openapi_errors(node: Mapping[str, Any], path: str, context: _Context, is_root: bool = False) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionOpenAPISchema`` without CEL."""
    errors = _standard_errors(node, path, context)
    if node.get("uniqueItems"):
        errors.append(forbidden_error(f"{path}.uniqueItems", "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
    extra = node.get("additionalProperties")
    if extra is not None:
        if node.get("properties") and (extra is False or isinstance(extra, Mapping)):
            errors.append(forbidden_error(f"{path}.additionalProperties", "additionalProperties and properties are mutual exclusive"))
        if isinstance(extra, Mapping):
            sub_context = context
            if context.inside_resource_meta:
                sub_context = _Context("inside additionalProperties applying to object metadata", True)
            errors += _openapi_errors(extra, f"{path}.additionalProperties", sub_context)
    for name, sub in (node.get("properties") or {}).items():
        sub_context = context
        if (is_root or node.get("x-kubernetes-embedded-resource")) and name in _META_FIELDS:
            sub_context = _Context(f"in top-level {name}" if is_root else context.defaults_forbidden_because, True)
        errors += _openapi_errors(sub, _key(f"{path}.properties", name), sub_context)
    if isinstance(node.get("not"), Mapping):
        errors += _openapi_errors(node["not"], f"{path}.not", context)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for index, sub in enumerate(node.get(keyword) or ()):
            errors += _openapi_errors(sub, f"{path}.{keyword}[{index}]", context)
    for name, sub in (node.get("definitions") or {}).items():
        errors += _openapi_errors(sub, _key(f"{path}.definitions", name), context)
    items = node.get("items")
    if isinstance(items, Mapping):
        errors += _openapi_errors(items, f"{path}.items", context)
    elif isinstance(items, list):
        for index, sub in enumerate(items):
            errors += _openapi_errors(sub, f"{path}.items[{index}]", context)
    if node.get("x-kubernetes-preserve-unknown-fields") is False:
        errors.append(invalid_error(f"{path}.x-kubernetes-preserve-unknown-fields", False, "must be true or undefined"))
    errors += _map_and_list_type_errors(node, path)
    return errors


def _standard_errors(node: Mapping[str, Any], path: str, context: _Context) -> list[FieldError]:
    """``specStandardValidatorV3.validate``."""
    errors = []
    node_type = node.get("type") or ""
    if node_type and node_type not in _OPENAPI_TYPES:
        errors.append(not_supported_error(f"{path}.type", node_type, _OPENAPI_TYPES))
    if node.get("default") is not None and context.defaults_forbidden_because is not None:
        reason = context.defaults_forbidden_because
        errors.append(forbidden_error(f"{path}.default", f"must not be set {reason}" if reason else "must not be set"))
    for key, message in (("id", "id is not supported"), ("additionalItems", "additionalItems is not supported"),
                         ("patternProperties", "patternProperties is not supported"),
                         ("definitions", "definitions is not supported"), ("dependencies", "dependencies is not supported"),
                         ("$ref", "$ref is not supported")):
        if node.get(key) not in (None, "", {}):
            errors.append(forbidden_error(f"{path}.{key}", message))
    if node_type == "null":
        errors.append(forbidden_error(f"{path}.type", "type cannot be set to null, use nullable as an alternative"))
    if isinstance(node.get("items"), list) and node["items"]:
        errors.append(forbidden_error(f"{path}.items", "items must be a schema object and not an array"))
    if context.inside_resource_meta and node.get("x-kubernetes-embedded-resource"):
        errors.append(forbidden_error(f"{path}.x-kubernetes-embedded-resource", "must not be used inside of resource meta"))
    return errors


def _map_and_list_type_errors(node: Mapping[str, Any], path: str) -> list[FieldError]:
    """The ``x-kubernetes-map-type``, ``x-kubernetes-list-type`` and ``-list-map-keys`` rules,
    and ``validateMapListKeysMapSet``."""
    errors: list[FieldError] = []
    node_type = node.get("type") or ""
    map_type = node.get("x-kubernetes-map-type")
    list_type = node.get("x-kubernetes-list-type")
    map_keys = node.get("x-kubernetes-list-map-keys") or []
    items = node.get("items") if isinstance(node.get("items"), Mapping) else None
    if map_type is not None and node_type != "object":
        message = "must be object if x-kubernetes-map-type is specified"
        errors.append(invalid_error(f"{path}.type", node_type, message) if node_type else required_error(f"{path}.type", message))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errors.append(not_supported_error(f"{path}.x-kubernetes-map-type", map_type, ("atomic", "granular")))
    if list_type is not None and node_type != "array":
        message = "must be array if x-kubernetes-list-type is specified"
        errors.append(invalid_error(f"{path}.type", node_type, message) if node_type else required_error(f"{path}.type", message))
    elif list_type == "set" and items is not None:
        if items.get("type") == "array" and items.get("x-kubernetes-list-type") not in (None, "atomic"):
            errors.append(invalid_error(f"{path}.items.x-kubernetes-list-type", items["x-kubernetes-list-type"],
                                        "must be atomic as item of a list with x-kubernetes-list-type=set"))
        elif items.get("type") == "object" and items.get("x-kubernetes-map-type") != "atomic":
            # kube reports the items' list type here (a nil pointer prints as "null")
            errors.append(invalid_error(f"{path}.items.x-kubernetes-map-type", items.get("x-kubernetes-list-type"),
                                        "must be atomic as item of a list with x-kubernetes-list-type=set"))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errors.append(not_supported_error(f"{path}.x-kubernetes-list-type", list_type, ("atomic", "set", "map")))
    if map_keys:
        if list_type is None:
            errors.append(required_error(f"{path}.x-kubernetes-list-type", "must be map if x-kubernetes-list-map-keys is non-empty"))
        elif list_type != "map":
            errors.append(invalid_error(f"{path}.x-kubernetes-list-type", list_type, "must be map if x-kubernetes-list-map-keys is non-empty"))
    if list_type == "map":
        errors += _list_map_errors(node, items, map_keys, path)
    if list_type in ("set", "map") and items is not None:
        if items.get("nullable"):
            errors.append(forbidden_error(f"{path}.items.nullable", f"cannot be nullable when x-kubernetes-list-type is {list_type}"))
        if list_type == "map":
            required = set(items.get("required") or ())
            for key in map_keys:
                key_schema = (items.get("properties") or {}).get(key)
                if key_schema is None:
                    continue
                key_path = f"{_key(f'{path}.items.properties', key)}"
                if key not in required and key_schema.get("default") is None:
                    errors.append(required_error(f"{key_path}.default",
                                                 "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
                if key_schema.get("nullable"):
                    errors.append(forbidden_error(f"{key_path}.nullable", "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
    return errors


def _list_map_errors(node: Mapping[str, Any], items: Mapping[str, Any] | None, map_keys: Sequence[str], path: str) -> list[FieldError]:
    errors = []
    if not map_keys:
        errors.append(required_error(f"{path}.x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map"))
    if node.get("items") is None:
        errors.append(required_error(f"{path}.items", "must have a schema if x-kubernetes-list-type is map"))
    if items is None:
        return errors
    if items.get("type") != "object":
        errors.append(invalid_error(f"{path}.items.type", items.get("type") or "", "must be object if parent array's x-kubernetes-list-type is map"))
        return errors
    seen: set[str] = set()
    keys_value = _go_strings(list(map_keys))
    for key in map_keys:
        key_schema = (items.get("properties") or {}).get(key)
        if key_schema is None:
            errors.append(_invalid_go_value(f"{path}.x-kubernetes-list-map-keys", keys_value, "entries must all be names of item properties"))
        elif key_schema.get("type") in ("array", "object"):
            errors.append(invalid_error(f"{_key(f'{path}.items.properties', key)}.type", "object",
                                        "must be a scalar type if parent array's x-kubernetes-list-type is map"))
        if key in seen:
            errors.append(_invalid_go_value(f"{path}.x-kubernetes-list-map-keys", keys_value, "must not contain duplicate entries"))
        seen.add(key)
    return errors


# --- what the registry serves ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ScaleSubresource:
    """``subresources.scale``: where the replicas live (``.spec.replicas``)."""

    spec_replicas_path: str
    status_replicas_path: str
    label_selector_path: str | None = None


@dataclass(frozen=True, slots=True)
class CustomResourceType:
    """One served version of a CRD: what the registry needs to serve it, and its schema
    (``StructuralSchema`` for writes, ``Schema`` for the patch and apply code)."""

    group: str
    version: str
    kind: str
    list_kind: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...]
    categories: tuple[str, ...]
    served: bool
    storage: bool
    status_subresource: bool
    scale: ScaleSubresource | None
    openapi_schema: Mapping[str, Any] = field(hash=False, compare=False, repr=False)
    structural: StructuralSchema = field(hash=False, compare=False, repr=False)
    printer_columns: tuple[Mapping[str, Any], ...] = field(hash=False, compare=False, repr=False)

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}"

    @property
    def schema(self) -> Schema:
        return Schema(self.openapi_schema)

    @property
    def subresource_names(self) -> tuple[str, ...]:
        """``status`` and ``scale`` as enabled, in discovery's order."""
        return tuple(name for name, on in (("status", self.status_subresource), ("scale", self.scale is not None)) if on)

    def resource_type(self) -> ResourceType:
        """The catalogue's view of this version: the verbs, subresources and etcd prefix kube
        serves custom resources with (``customresource_handler.go``; keys under
        ``/registry/<group>/<plural>/``)."""
        subresources = {}
        if self.status_subresource:
            subresources["status"] = SubresourceType(self.kind, self.group, self.version, _SUBRESOURCE_VERBS)
        if self.scale is not None:
            subresources["scale"] = SubresourceType("Scale", "autoscaling", "v1", _SUBRESOURCE_VERBS)
        return ResourceType(
            group=self.group, version=self.version, kind=self.kind, plural=self.plural, singular=self.singular,
            namespaced=self.namespaced, verbs=_CUSTOM_RESOURCE_VERBS, short_names=self.short_names,
            categories=self.categories, subresources=MappingProxyType(subresources),
            storage_prefix=f"{ETCD_PREFIX}/{self.group}/{self.plural}/", custom=True,
        )


_CUSTOM_RESOURCE_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
_SUBRESOURCE_VERBS = ("get", "patch", "update")


def custom_resource_types(crd: Mapping[str, Any]) -> tuple[CustomResourceType, ...]:
    """A (valid) CRD's versions, served or not, named by its accepted names once it has some
    (kube serves a CRD under ``status.acceptedNames``), else its requested names."""
    spec = crd.get("spec") or {}
    names = (crd.get("status") or {}).get("acceptedNames") or {}
    if not names.get("plural"):
        names = spec.get("names") or {}
    out = []
    for version in spec.get("versions") or ():
        subresources = version.get("subresources") or {}
        scale = subresources.get("scale")
        openapi_schema = (version.get("schema") or {}).get("openAPIV3Schema") or {"type": "object"}
        out.append(CustomResourceType(
            group=spec.get("group") or "", version=version.get("name") or "", kind=names.get("kind") or "",
            list_kind=names.get("listKind") or f"{names.get('kind') or ''}List", plural=names.get("plural") or "",
            singular=names.get("singular") or (names.get("kind") or "").lower(),
            namespaced=spec.get("scope") == "Namespaced",
            short_names=tuple(names.get("shortNames") or ()), categories=tuple(names.get("categories") or ()),
            served=bool(version.get("served")), storage=bool(version.get("storage")),
            status_subresource=subresources.get("status") is not None,
            scale=None if scale is None else ScaleSubresource(
                scale.get("specReplicasPath") or "", scale.get("statusReplicasPath") or "", scale.get("labelSelectorPath")),
            openapi_schema=openapi_schema,
            structural=StructuralSchema(openapi_schema),
            printer_columns=tuple(version.get("additionalPrinterColumns") or ()),
        ))
    return tuple(out)
