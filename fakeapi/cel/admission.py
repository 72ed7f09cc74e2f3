"""The CEL environments of admission policies (kube's ``admission/plugin/cel/compile.go``): the
variables a ValidatingAdmissionPolicy's expressions may use, and the declared types of
``request`` (``BuildRequestType``) and ``namespaceObject`` (``BuildNamespaceType``) as schemas
``checks`` reads. ``object``, ``oldObject`` and ``params`` are ``dyn``: nothing is known of
their fields before evaluation. Shared by the write-time validation of policies
(``fakeapi.apis.admissionregistration``) and their evaluation (``fakeapi.admission.policy``)."""

from __future__ import annotations

from functools import cache
from typing import Any

from .checks import DECLARED_TYPE
from .engine import Environment
from .library import KUBE_LIBRARY, LibraryError

OBJECT, OLD_OBJECT, PARAMS, REQUEST = "object", "oldObject", "params", "request"
NAMESPACE_OBJECT, AUTHORIZER, VARIABLES = "namespaceObject", "authorizer", "variables"

def _declared(properties: dict[str, Any]) -> dict[str, Any]:
    """The schema of a declared object type with these fields."""
    return {"type": "object", DECLARED_TYPE: True, "properties": properties}


_STRING: dict[str, Any] = {"type": "string"}
_STRINGS: dict[str, Any] = {"type": "array", "items": _STRING}
_GVK = _declared({"group": _STRING, "version": _STRING, "kind": _STRING})
_GVR = _declared({"group": _STRING, "version": _STRING, "resource": _STRING})
#: ``kubernetes.AdmissionRequest`` (no ``uid``, ``object`` nor ``oldObject``: the latter two are
#: variables of their own).
REQUEST_SCHEMA = _declared({
    "kind": _GVK, "resource": _GVR, "subResource": _STRING, "requestKind": _GVK, "requestResource": _GVR,
    "requestSubResource": _STRING, "name": _STRING, "namespace": _STRING, "operation": _STRING,
    "userInfo": _declared({"username": _STRING, "uid": _STRING, "groups": _STRINGS,
                           "extra": {"type": "object", "additionalProperties": _STRINGS}}),
    "dryRun": {"type": "boolean"}, "options": {},
})
_TIMESTAMP = {"type": "string", "format": "date-time"}
#: ``kubernetes.Namespace``: the metadata kube exposes (its ``UID`` field is spelt so), spec
#: and status.
NAMESPACE_SCHEMA = _declared({
    "metadata": _declared({
        "name": _STRING, "generateName": _STRING, "namespace": _STRING,
        "labels": {"type": "object", "additionalProperties": _STRING},
        "annotations": {"type": "object", "additionalProperties": _STRING},
        "UID": _STRING, "creationTimestamp": _TIMESTAMP, "deletionGracePeriodSeconds": {"type": "integer"},
        "deletionTimestamp": _TIMESTAMP, "generation": {"type": "integer"}, "resourceVersion": _STRING,
        "finalizers": _STRINGS}),
    "spec": _declared({"finalizers": _STRINGS}),
    "status": _declared({
        "conditions": {"type": "array", "items": _declared({
            "status": _STRING, "type": _STRING, "lastTransitionTime": _TIMESTAMP, "message": _STRING,
            "reason": _STRING})},
        "phase": _STRING}),
})


def _not_served(*_arguments: Any) -> Any:
    raise LibraryError("the authorizer library is not served by fakeapi")


#: kube's libraries and the authorizer library (``library.Authz``), whose functions are declared
#: (an expression calling them compiles, as in kube) but not served: a call fails at evaluation.
ADMISSION_LIBRARY = {**KUBE_LIBRARY, **dict.fromkeys((
    "path", "group", "resource", "subresource", "name", "check", "allowed", "reason", "errored", "error",
    "serviceAccount", "fieldSelector", "labelSelector"), _not_served)}


@cache
def environment(params: bool, authorizer: bool, variables: bool) -> Environment:
    """The environment of a policy's expressions (``createEnvForOpts``): ``params`` when the
    policy has a ``paramKind``, ``authorizer`` but in message expressions, ``variables`` when
    the expressions are compiled with variable composition."""
    names = [OBJECT, OLD_OBJECT, REQUEST, NAMESPACE_OBJECT]
    if params:
        names.append(PARAMS)
    if authorizer:
        names.append(AUTHORIZER)
    if variables:
        names.append(VARIABLES)
    return Environment(names, ADMISSION_LIBRARY)


def variables_schema(names: list[str]) -> dict[str, Any]:
    """``kubernetes.variables`` with the fields ``names`` (the variables compiled so far), each
    of a type only evaluation tells."""
    return _declared({name: {} for name in names})


def schemas(variables: list[str] | None) -> dict[str, tuple[dict[str, Any], bool]]:
    """What ``checks`` knows of the declared variables' types."""
    known = {REQUEST: (REQUEST_SCHEMA, False), NAMESPACE_OBJECT: (NAMESPACE_SCHEMA, False)}
    if variables is not None:
        known[VARIABLES] = (variables_schema(variables), False)
    return known
