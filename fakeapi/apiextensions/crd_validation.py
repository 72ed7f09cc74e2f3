"""CRD validation as apiextensions-apiserver does it: ``validate_crd`` / ``crd_errors`` are
``apis/apiextensions/validation/validation.go`` ``ValidateCustomResourceDefinition`` and
``...Update``.

Validation runs on the internal type, to which the v1 object converts with per-version schemas,
subresources and printer columns moved to the spec when all versions agree
(``v1/conversion.go``), hence kube's ``spec.validation.openAPIV3Schema`` paths for
single-version CRDs. A version's schema is ``crd_schema_validation``'s.

Left out: CEL type checking (``x-kubernetes-validations`` rules are compiled and their costs
estimated, ``cel_validation.rule_errors``, but type-checked only as far as the schema tells),
webhook CA bundles, and ObjectMeta validation other than the name (the
registry's). Bad values that are Go structs print as ``%#v`` does (``go_values``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..machinery.golang import go_quote
from ..machinery.status import (
    FieldError,
    duplicate_error,
    forbidden_error,
    invalid,
    invalid_error,
    not_supported_error,
    required_error,
    too_many_error,
)
from .crd_names import condition_value
from .crd_schema_validation import all_nodes, validation_errors
from .go_values import go_strings, go_versions, invalid_go_value
from .structural import dns1035_label_problems

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

# Field paths are kube's ``field.Path`` strings, built by this.


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


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
    selectable_fields: Sequence[Mapping[str, Any]] | None

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> _InternalSpec:
        versions = tuple(v if isinstance(v, Mapping) else {} for v in spec.get("versions") or ())
        hoisted = {name: bool(versions) and all(v.get(name) == versions[0].get(name) for v in versions)
                   for name in ("schema", "subresources", "additionalPrinterColumns", "selectableFields")}
        if versions:
            versions = tuple({k: v for k, v in version.items() if not hoisted.get(k)} for version in versions)
        source = spec.get("versions") or [{}]
        return cls(
            versions=versions,
            validation=source[0].get("schema") if hoisted["schema"] else None,
            subresources=source[0].get("subresources") if hoisted["subresources"] else None,
            columns=source[0].get("additionalPrinterColumns") if hoisted["additionalPrinterColumns"] else None,
            selectable_fields=source[0].get("selectableFields") if hoisted["selectableFields"] else None,
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
    errors += _spec_errors(spec, require_schemas=old_spec is None or _all_versions_have_schemas(old_spec),
                           unchanged_schemas=_versions_with_unchanged_schemas(spec, old_spec or {}),
                           many_selectable_kept=_many_selectable_fields_kept(spec, old_spec or {}))
    if old is not None:
        errors += _spec_update_errors(spec, old_spec or {}, established=condition_value(old.get("status") or {}, "Established"))
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


def _versions_with_unchanged_schemas(spec: Mapping[str, Any], old_spec: Mapping[str, Any]) -> frozenset[str]:
    """``findVersionsWithUnchangedSchemas``: the versions whose schema an update leaves as it was."""
    old_schemas = {version.get("name"): version.get("schema") for version in old_spec.get("versions") or ()}
    return frozenset(version.get("name") or "" for version in spec.get("versions") or ()
                     if version.get("name") in old_schemas and old_schemas[version.get("name")] == version.get("schema"))


def _many_selectable_fields_kept(spec: Mapping[str, Any], old_spec: Mapping[str, Any]) -> frozenset[str]:
    """``findTooManySelectableFieldsAllowed``: the versions (``""``: the spec, as the internal
    type has them) whose selectable fields, more than ``MAX_SELECTABLE_FIELDS``, an update leaves
    as they were."""
    new, old = _InternalSpec.of(spec), _InternalSpec.of(old_spec)
    kept = set()
    if len(old.selectable_fields or ()) > MAX_SELECTABLE_FIELDS and new.selectable_fields == old.selectable_fields:
        kept.add("")
    old_fields = {v.get("name"): v.get("selectableFields") for v in old.versions}
    for version in new.versions:
        previous = old_fields.get(version.get("name"))
        if len(previous or ()) > MAX_SELECTABLE_FIELDS and version.get("selectableFields") == previous:
            kept.add(version.get("name") or "")
    return frozenset(kept)


def _spec_errors(spec: Mapping[str, Any], require_schemas: bool, unchanged_schemas: frozenset[str] = frozenset(),
                 many_selectable_kept: frozenset[str] = frozenset()) -> list[FieldError]:
    """``validateCustomResourceDefinitionSpec``; ``unchanged_schemas``: the versions whose
    schema an update leaves as it was; ``many_selectable_kept``: those (``""`` the spec's) whose
    too many selectable fields an update leaves as they were."""
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
        errors += _version_errors(version, path, _has_status(internal.subresources_of(version)), name in unchanged_schemas)
        if version.get("selectableFields"):
            if (version.get("schema") or {}).get("openAPIV3Schema") is None:
                # kube's message, though the schema it misses was moved to spec.validation
                errors.append(invalid_error(f"{path}.selectableFields", "",
                                            "may only be set when `version.schema.openAPIV3Schema` is not included"))
            else:
                errors += selectable_fields_errors(version["selectableFields"], version["schema"]["openAPIV3Schema"],
                                                   f"{path}.selectableFields", name in many_selectable_kept)
    versions_value = go_versions(internal.versions)
    if not unique_names:
        errors.append(invalid_go_value("spec.versions", versions_value, "must contain unique version names"))
    if sum(bool(v.get("storage")) for v in internal.versions) != 1:
        errors.append(invalid_go_value("spec.versions", versions_value, "must have exactly one version marked as storage version"))
    if internal.versions and (problems := dns1035_label_problems(internal.versions[0].get("name") or "")):
        errors.append(invalid_error("spec.version", internal.versions[0].get("name") or "", ",".join(problems)))

    names = spec.get("names") or {}
    for name in ("plural", "singular", "kind", "listKind"):
        if not names.get(name):
            errors.append(required_error(f"spec.names.{name}"))
    errors += _names_errors(names, "spec.names")
    first_version = internal.versions[0].get("name") if internal.versions else None
    errors += validation_errors(internal.validation, internal.any_status(), "spec.validation", first_version in unchanged_schemas)
    errors += _subresources_errors(internal.subresources, "spec.subresources")
    for index, column in enumerate(internal.columns or ()):
        errors += _column_errors(column, f"spec.additionalPrinterColumns[{index}]")
    if internal.selectable_fields:
        if internal.validation is None:
            errors.append(invalid_error("spec.selectableFields", "", "may only be set when validations.schema is included"))
        else:
            errors += selectable_fields_errors(internal.selectable_fields, internal.validation.get("openAPIV3Schema") or {},
                                               "spec.selectableFields", "" in many_selectable_kept)
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
    return isinstance(schema, Mapping) and any(map(predicate, all_nodes(schema)))


def _version_errors(version: Mapping[str, Any], path: str, status_enabled: bool, unchanged_schema: bool) -> list[FieldError]:
    """``validateCustomResourceDefinitionVersion`` but its selectable fields (``_spec_errors``'):
    the deprecation warning, the schema, subresources and printer columns."""
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
    errors += validation_errors(version.get("schema"), status_enabled, f"{path}.schema", unchanged_schema)
    errors += _subresources_errors(version.get("subresources"), f"{path}.subresources")
    for index, column in enumerate(version.get("additionalPrinterColumns") or ()):
        errors += _column_errors(column, f"{path}.additionalPrinterColumns[{index}]")
    return errors


#: ``MaxSelectableFields``.
MAX_SELECTABLE_FIELDS = 8
_SELECTABLE_TYPES = frozenset(("string", "boolean", "integer"))


def selectable_fields_errors(fields: Sequence[Mapping[str, Any]], schema: Mapping[str, Any], path: str,
                             many_kept: bool) -> list[FieldError]:
    """``ValidateCustomResourceSelectableFields``: each ``jsonPath`` a path (without array
    notation) to a string, boolean or integer field of ``schema`` outside the metadata, no two to
    one field, at most ``MAX_SELECTABLE_FIELDS`` of them (unless ``many_kept``: an update keeps
    more it had)."""
    errors: list[FieldError] = []
    unique: set[str] = set()
    for index, selectable in enumerate(fields):
        field_path = f"{path}[{index}].jsonPath"
        json_path = selectable.get("jsonPath") or ""
        if not json_path:
            errors.append(required_error(field_path))
            continue
        try:
            steps, found = schema_field_path(json_path, schema)
        except ValueError as err:
            errors.append(invalid_error(field_path, json_path, f"is an invalid path: {err}"))
            continue
        if steps and steps[0] == ("metadata", False):
            errors.append(invalid_error(field_path, json_path, "must not point to fields in metadata"))
        if found.get("type") not in _SELECTABLE_TYPES:
            errors.append(invalid_error(field_path, json_path, "must point to a field of type string, boolean or "
                                        "integer. Enum string fields and strings with formats are allowed."))
        # field.Path's string: the first field bare, then ".field" or "[key]"
        shown = "".join(f"[{name}]" if keyed else f".{name}" if position else name
                        for position, (name, keyed) in enumerate(steps))
        if shown in unique:
            errors.append(duplicate_error(field_path, json_path))
        unique.add(shown)
    if len(unique) > MAX_SELECTABLE_FIELDS and not many_kept:
        errors.append(too_many_error(path, len(unique), MAX_SELECTABLE_FIELDS))
    return errors


def _json_path_tokens(json_path: str) -> list[str]:
    """``ValidFieldPath``'s scanner: ``.``, ``[`` and ``]`` alone, a single-quoted string (to the
    next quote not after a backslash, else to the end), the text between delimiters."""
    tokens, index = [], 0
    while index < len(json_path):
        if json_path[index] == "'":
            end = next((i for i in range(index + 1, len(json_path)) if json_path[i] == "'" and json_path[i - 1] != "\\"),
                       len(json_path) - 1)
        elif json_path[index] in ".[]":
            end = index
        else:
            end = next((i - 1 for i in range(index, len(json_path)) if json_path[i] in ".[]"), len(json_path) - 1)
        tokens.append(json_path[index:end + 1])
        index = end + 1
    return tokens


def schema_field_path(json_path: str, schema: Mapping[str, Any]) -> tuple[list[tuple[str, bool]], Mapping[str, Any]]:
    """``cel.ValidFieldPath`` without array notation: the steps ``json_path`` (``.a.b``) takes,
    each a name and whether it is a map key (a node without properties but with
    additionalProperties), and the schema it reaches; ``ValueError`` with kube's reason
    otherwise."""
    steps: list[tuple[str, bool]] = []
    node = schema
    tokens = _json_path_tokens(json_path)
    for index in range(0, len(tokens), 2):
        if tokens[index] == "[":
            raise ValueError("array notation is not allowed")
        if tokens[index] != ".":
            raise ValueError(f"expected [ or . but got: {tokens[index]}")
        if index + 1 >= len(tokens):
            raise ValueError("unexpected end of JSON path")
        name = tokens[index + 1]
        properties, additional = node.get("properties"), node.get("additionalProperties")
        if properties is not None:
            if name not in properties:
                raise ValueError("does not refer to a valid field")
            node = properties[name]
        elif isinstance(additional, Mapping):
            node = additional
        else:
            raise ValueError("does not refer to a valid field")
        steps.append((name, properties is None))
    return steps, node


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
        errors.append(invalid_go_value(review_path, go_strings(review_versions),
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
        return [invalid_go_value(path, go_strings(None), "must have at least one stored version")]
    errors = []
    remaining = {name: index for index, name in enumerate(stored)}
    for version in versions:
        name = version.get("name") or ""
        if version.get("storage") and name not in remaining:
            errors.append(invalid_go_value(path, go_strings(stored), f"must have the storage version {name}"))
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
