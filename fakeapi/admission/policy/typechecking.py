"""A ValidatingAdmissionPolicy's ``status.typeChecking``, as kube's ``TypeChecker``
(``apiserver/pkg/admission/plugin/policy/validating/typechecking.go``) computes it for
kube-controller-manager's ``validatingadmissionpolicy-status`` controller.

The kinds checked are those the policy's ``matchConstraints.resourceRules`` name exactly: a rule
with a wildcard group or version names none, a wildcard resource or a subresource is passed
over, and at most 10 kinds of one rule are kept (``typesToCheck``); each is checked in group,
version, kind order. For each kind, ``object`` and ``oldObject`` have the kind's schema type (a
resource root: ``SchemaDeclType(schema, true)``), ``request`` and ``namespaceObject`` kube's
declared types, ``params`` the ``paramKind``'s (undeclared when
its schema is not found: a reference to it is then an error), and each of ``spec.variables`` the type of its expression. Each
validation's ``expression`` and ``messageExpression`` with errors for some kind gets a warning:
per kind ``<group>/<version>, Kind=<kind>: <cel-go's errors>`` and a newline, joined by newlines.

Schemas come from a ``SchemaSource``: kube reads built-in kinds' from the OpenAPI definitions it
is built with and custom resources' from the API server's OpenAPI v3, with their references
resolved; ``builtin_schema`` resolves a built-in kind's from the definitions fakeapi serves.
An expression ``fakeapi.cel.typecheck`` does not check (for any of the kinds) gets no warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Protocol

from ...cel.admission import NAMESPACE_OBJECT, NAMESPACE_SCHEMA, REQUEST, REQUEST_SCHEMA
from ...cel.typecheck import check, infer
from ...cel.types import CelType, DeclType, decl_type, type_of_decl
from ...machinery.schema import definition_name, definitions

Json = Any
#: kube's ``maxTypesToCheck``: the kinds one resource rule contributes at most.
MAX_TYPES_TO_CHECK = 10
_REF_PREFIX = "#/$defs/"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"

GroupVersionKind = tuple[str, str, str]


class SchemaSource(Protocol):
    def kinds_for(self, group: str, version: str, resource: str) -> list[GroupVersionKind]:
        """The kinds a resource of a group version is served as, named by its plural or its
        singular (kube's ``RESTMapper.KindsFor``)."""

    def schema(self, group: str, version: str, kind: str) -> Mapping[str, Any] | None:
        """A kind's schema with its references resolved; None when there is none."""


class UnresolvableSchema(ValueError):
    """A schema this module does not resolve (one that refers to itself)."""


def _resolved(node: Mapping[str, Any], defs: Mapping[str, Any], open_refs: frozenset[str]) -> dict[str, Any]:
    """A definition with its references replaced by what they refer to and each nullable type
    list (``["string", "null"]``) as the one type kube's definitions declare."""
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        name = ref[len(_REF_PREFIX):]
        if name == _INT_OR_STRING:
            # kube's definition declares it by its format, which the JSON Schema rendering drops;
            # kube's SchemaDeclType makes it a dyn either way
            return {"x-kubernetes-int-or-string": True}
        if name in open_refs:
            raise UnresolvableSchema(name)
        return _resolved(defs[name], defs, open_refs | {name})
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, list):
            out[key] = next((kind for kind in value if kind != "null"), None)
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: _resolved(prop, defs, open_refs) for name, prop in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = _resolved(value, defs, open_refs)
        elif key not in ("description", "oneOf", "anyOf", "allOf"):
            out[key] = value
    return out


@cache
def builtin_schema(group: str, version: str, kind: str) -> Mapping[str, Any] | None:
    """A built-in kind's schema, references resolved (None: not a built-in kind)."""
    name = definition_name(group, version, kind)
    if name is None:
        return None
    defs = definitions()
    return _resolved(defs[name], defs, frozenset((name,)))


@cache
def object_meta_schema() -> Mapping[str, Any]:
    """ObjectMeta's schema, references resolved: a custom resource's ``metadata`` as kube
    publishes it."""
    defs = definitions()
    return _resolved({"$ref": _REF_PREFIX + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}, defs, frozenset())


@cache
def _admission_types() -> dict[str, CelType]:
    """``request`` and ``namespaceObject`` as kube declares them (``BuildRequestType``,
    ``BuildNamespaceType``): objects of fixed fields; a request's ``options`` is a dyn."""
    request, namespace = decl_type(REQUEST_SCHEMA, False), decl_type(NAMESPACE_SCHEMA, False)
    assert request is not None and namespace is not None
    request.fields["options"] = DeclType("dyn")
    return {REQUEST: type_of_decl(request), NAMESPACE_OBJECT: type_of_decl(namespace)}


def types_to_check(spec: Mapping[str, Any], source: SchemaSource) -> list[GroupVersionKind]:
    """``typesToCheck``: the kinds the policy's resource rules name exactly, sorted."""
    kinds: set[GroupVersionKind] = set()
    for rule in (spec.get("matchConstraints") or {}).get("resourceRules") or ():
        groups, versions = rule.get("apiGroups") or [], rule.get("apiVersions") or []
        resources = sorted(resource for resource in rule.get("resources") or () if "*" not in resource and "/" not in resource)
        if not groups or not versions or not resources or any("*" in name for name in (*groups, *versions)):
            continue
        count = 0
        for group in sorted(groups):
            for version in sorted(versions):
                for resource in resources:
                    for gvk in source.kinds_for(group, version, resource):
                        kinds.add(gvk)
                        count += 1
                        if count == MAX_TYPES_TO_CHECK:
                            return sorted(kinds)
    return sorted(kinds)


def _param_gvk(spec: Mapping[str, Any]) -> GroupVersionKind | None:
    param_kind = spec.get("paramKind")
    if not param_kind:
        return None
    group, _, version = str(param_kind.get("apiVersion") or "").rpartition("/")
    if not version or "/" in group:
        return None
    return group, version, str(param_kind.get("kind") or "")


def _type_of(source: SchemaSource, gvk: GroupVersionKind) -> CelType | None:
    schema = source.schema(*gvk)
    if schema is None:
        return None
    decl: DeclType | None = decl_type(schema, True)
    return type_of_decl(decl) if decl is not None else None


def expression_warnings(spec: Mapping[str, Any], source: SchemaSource) -> list[dict[str, str]]:
    """``TypeChecker.Check``: each validation's expression and messageExpression with type
    errors for some kind, as ``{"fieldRef", "warning"}``, in the validations' order."""
    checked: list[tuple[str, Mapping[str, CelType], Mapping[str, CelType]]] = []
    undeclared: frozenset[str] = frozenset()
    param_gvk = _param_gvk(spec)
    try:
        param_type = _type_of(source, param_gvk) if param_gvk is not None else None
        object_types = [(gvk, _type_of(source, gvk)) for gvk in types_to_check(spec, source)]
    except UnresolvableSchema:
        return []  # kube checks these kinds; no warning is better than a partial one
    if param_gvk is not None and param_type is None:
        undeclared = frozenset(("params",))  # kube declares params only with its kind's schema
    for gvk, object_type in object_types:
        if object_type is None:
            continue  # as kube's, a kind without a schema is passed over
        declared = {"object": object_type, "oldObject": object_type, **_admission_types()}
        if param_type is not None:
            declared["params"] = param_type
        composited: dict[str, CelType] = {}
        for variable in spec.get("variables") or ():
            variable_type = infer(str(variable.get("expression") or ""), declared, composited, undeclared)
            if variable_type is not None:
                composited[str(variable.get("name"))] = variable_type
        group, version, kind = gvk
        checked.append((f"{group}/{version}, Kind={kind}", declared, composited))
    warnings: list[dict[str, str]] = []
    for index, validation in enumerate(spec.get("validations") or ()):
        for field in ("expression", "messageExpression"):
            expression = validation.get(field)
            if not expression:
                continue
            warning = _warning(str(expression), checked, undeclared)
            if warning:
                warnings.append({"fieldRef": f"spec.validations[{index}].{field}", "warning": warning})
    return warnings


def _warning(expression: str, checked: list[tuple[str, Mapping[str, CelType], Mapping[str, CelType]]],
             undeclared: frozenset[str]) -> str | None:
    """One expression's warning over every kind; None where some kind's check is not known."""
    results: list[str] = []
    for kind, declared, composited in checked:
        issues = check(expression, declared, composited, undeclared)
        if issues is None:
            return None
        if issues:
            results.append(f"{kind}: {issues}\n")
    return "\n".join(results)
