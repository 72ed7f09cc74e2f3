"""RBAC validation (``pkg/apis/rbac/validation/validation.go``; the strategies add nothing but
ClusterRoles' allowance for already-invalid selector label values)."""

from __future__ import annotations

from ...machinery.path import validate_path_segment_name
from ...machinery.status import FieldError, invalid_error, required_error
from ...machinery.validation import (
    DEFAULT_LABEL_SELECTOR_OPTIONS,
    LabelSelectorValidationOptions,
    index,
    invalid_json,
    name_is_dns_subdomain,
    validate_label_selector,
)
from .. import selectors
from ..core.validation_common import validate_core_object_meta, validate_core_object_meta_update
from ..errors import not_supported_json
from ..fields import Json, items
from .defaults import GROUP


def _validate_rule(rule: Json, namespaced: bool, path: str) -> list[FieldError]:
    """``ValidatePolicyRule``."""
    errors: list[FieldError] = []
    if not rule.get("verbs"):
        errors.append(required_error(f"{path}.verbs", "verbs must contain at least one value"))
    urls = rule.get("nonResourceURLs")
    if urls:
        if namespaced:
            errors.append(invalid_json(f"{path}.nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs"))
        if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
            errors.append(invalid_json(f"{path}.nonResourceURLs", urls,
                                       "rules cannot apply to both regular resources and non-resource URLs"))
        return errors
    if not rule.get("apiGroups"):
        errors.append(required_error(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not rule.get("resources"):
        errors.append(required_error(f"{path}.resources", "resource rules must supply at least one resource"))
    return errors


def _validate_role(obj: Json, namespaced: bool) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], namespaced, validate_path_segment_name)
    for i, rule in enumerate(items(obj, "rules")):
        errors += _validate_rule(rule, namespaced, index("rules", i))
    return errors


def validate_role(obj: Json) -> list[FieldError]:
    return _validate_role(obj, True)


def validate_role_update(new: Json, old: Json) -> list[FieldError]:
    return _validate_role(new, True) + validate_core_object_meta_update(new["metadata"], old["metadata"])


def _validate_cluster_role(obj: Json, options: LabelSelectorValidationOptions) -> list[FieldError]:
    """``ValidateClusterRole``: an aggregation rule selects at least one label set."""
    errors = _validate_role(obj, False)
    rule = obj.get("aggregationRule")
    if rule is not None:
        path = "aggregationRule.clusterRoleSelectors"
        chosen = items(rule, "clusterRoleSelectors")
        if not chosen:
            errors.append(required_error(path, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
        for i, selector in enumerate(chosen):
            errors += validate_label_selector(selector, options, index(path, i))
            if not selectors.converts(selector):
                errors.append(invalid_json(index(path, i), None, "invalid label selector."))
    return errors


def validate_cluster_role(obj: Json) -> list[FieldError]:
    return _validate_cluster_role(obj, DEFAULT_LABEL_SELECTOR_OPTIONS)


def validate_cluster_role_update(new: Json, old: Json) -> list[FieldError]:
    """Selector label values the stored role already had wrong stay allowed."""
    invalid_before = any(validate_label_selector(selector, DEFAULT_LABEL_SELECTOR_OPTIONS, "")
                         for selector in items(old.get("aggregationRule"), "clusterRoleSelectors"))
    options = LabelSelectorValidationOptions(allow_invalid_label_value_in_selector=invalid_before)
    return _validate_cluster_role(new, options) + validate_core_object_meta_update(new["metadata"], old["metadata"])


def _validate_subject(subject: Json, namespaced: bool, path: str) -> list[FieldError]:
    """``ValidateRoleBindingSubject``."""
    errors: list[FieldError] = []
    name, kind, group = subject.get("name") or "", subject.get("kind") or "", subject.get("apiGroup") or ""
    if not name:
        errors.append(required_error(f"{path}.name"))
    if kind == "ServiceAccount":
        if name:
            errors += [invalid_error(f"{path}.name", name, m) for m in name_is_dns_subdomain(name, False)]
        if group:
            errors.append(not_supported_json(f"{path}.apiGroup", group, ("",)))
        if not namespaced and not subject.get("namespace"):
            errors.append(required_error(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if group != GROUP:
            errors.append(not_supported_json(f"{path}.apiGroup", group, (GROUP,)))
    else:
        errors.append(not_supported_json(f"{path}.kind", kind, ("ServiceAccount", "User", "Group")))
    return errors


def _validate_binding(obj: Json, namespaced: bool) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], namespaced, validate_path_segment_name)
    ref = obj.get("roleRef") or {}
    if (ref.get("apiGroup") or "") != GROUP:
        errors.append(not_supported_json("roleRef.apiGroup", ref.get("apiGroup") or "", (GROUP,)))
    kinds = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)
    if (ref.get("kind") or "") not in kinds:
        errors.append(not_supported_json("roleRef.kind", ref.get("kind") or "", kinds))
    name = ref.get("name") or ""
    if not name:
        errors.append(required_error("roleRef.name"))
    else:
        errors += [invalid_error("roleRef.name", name, m) for m in validate_path_segment_name(name, False)]
    for i, subject in enumerate(items(obj, "subjects")):
        errors += _validate_subject(subject, namespaced, index("subjects", i))
    return errors


def _role_ref_go(ref: Json) -> Json:
    """An internal ``rbac.RoleRef`` as ``json.Marshal`` prints it."""
    return {"APIGroup": ref.get("apiGroup") or "", "Kind": ref.get("kind") or "", "Name": ref.get("name") or ""}


def _validate_binding_update(new: Json, old: Json, namespaced: bool) -> list[FieldError]:
    """The role a binding grants cannot change."""
    errors = _validate_binding(new, namespaced) + validate_core_object_meta_update(new["metadata"], old["metadata"])
    new_ref, old_ref = _role_ref_go(new.get("roleRef") or {}), _role_ref_go(old.get("roleRef") or {})
    if new_ref != old_ref:
        errors.append(invalid_json("roleRef", new_ref, "cannot change roleRef"))
    return errors


def validate_role_binding(obj: Json) -> list[FieldError]:
    return _validate_binding(obj, True)


def validate_role_binding_update(new: Json, old: Json) -> list[FieldError]:
    return _validate_binding_update(new, old, True)


def validate_cluster_role_binding(obj: Json) -> list[FieldError]:
    return _validate_binding(obj, False)


def validate_cluster_role_binding_update(new: Json, old: Json) -> list[FieldError]:
    return _validate_binding_update(new, old, False)
