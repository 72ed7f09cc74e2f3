"""The CEL environments of admission policies (kube's ``admission/plugin/cel/compile.go``): the
variables a ValidatingAdmissionPolicy's expressions may use, and the declared types of
``request`` (``BuildRequestType``) and ``namespaceObject`` (``BuildNamespaceType``) as schemas
``checks`` reads. ``object``, ``oldObject`` and ``params`` are ``dyn``: nothing is known of
their fields before evaluation. Shared by the write-time validation of policies
(``fakeapi.apis.admissionregistration``) and their evaluation (``fakeapi.admission.policy``).

The ``authorizer`` variable and kube's authorizer library (``library.Authz``): a ``Principal``
(the request's user and the server's authorizer) bound as ``Principal.value``, on which
``check`` asks the server's authorizer an ``AccessCheck`` and answers its decision."""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from functools import cache
from typing import Any

import orjson

from .access import ALLOW, AccessCheck, Authorize
from .checks import DECLARED_TYPE
from .engine import Environment
from ..machinery import validation
from .library import KUBE_LIBRARY, LibraryError

OBJECT, OLD_OBJECT, PARAMS, REQUEST = "object", "oldObject", "params", "request"
NAMESPACE_OBJECT, AUTHORIZER, VARIABLES = "namespaceObject", "authorizer", "variables"
Json = dict[str, Any]

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


# --- kube's authorizer library (``library.Authz``, ``AuthzSelectors``) ---------------------------
#
# Its values cannot cross the engine's boundary as Python objects: they are one-key maps, as
# ``library``'s kube types, whose value is a JSON list in a string (the engine converts a string
# at the cost of one scalar, where a list costs each of its items: a check's chain of calls
# costs a third of what nested lists cost). An authorizer's list is ``[key, namespace, name]``:
# the key of the ``Principal`` (the request's user and the server's authorizer) it checks for,
# and the service account it checks as instead (``serviceAccount``; empty: the request's user).
# A group check is the authorizer's list and the group, a resource check the authorizer's list
# and the ``ResourceCheck`` fields (``_RESOURCE_FIELDS``), a path check the authorizer's list
# and the path; a decision is its decision, reason and error. The ``authorizer`` variable is the
# authorizer with one field more, ``requestResource``: kube's ``authorizer.requestResource``
# variable, read here as a field of ``authorizer``.

_AUTHORIZER = "@kubernetes.authorization.Authorizer"
_GROUP_CHECK = "@kubernetes.authorization.GroupCheck"
_RESOURCE_CHECK = "@kubernetes.authorization.ResourceCheck"
_PATH_CHECK = "@kubernetes.authorization.PathCheck"
_DECISION = "@kubernetes.authorization.Decision"
#: A resource check's list after its authorizer's: what ``resourceCheckVal`` holds.
_RESOURCE_FIELDS = ("group", "resource", "subresource", "namespace", "name", "fieldSelector", "labelSelector")
#: The length of an authorizer's list, which begins every check's.
_AUTHORIZER_FIELDS = 3
_SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
#: kube's runtime cost of a check (``CallCost``; any other call of the library costs 1), and the
#: cost one expression may reach (``celconfig.PerCallLimit``): an expression makes two checks.
_CHECK_COST, _PER_CALL_LIMIT = 350_000, 1_000_000

class Principal:
    """Who the authorizer values of one request check for: the request's user, through the
    server's authorizer. The values name it by a key, alive while the principal is: whoever
    binds ``value`` keeps the principal while the expressions reading it evaluate (a key
    never reused, so a value outliving its principal fails rather than checks for another)."""

    __slots__ = ("authorize", "user", "value", "checks", "__weakref__")

    def __init__(self, authorize: Authorize, user: Json, request_resource: tuple[str, str, str, str, str]) -> None:
        self.authorize = authorize
        self.user = user
        #: The checks made by the expression being evaluated (``begin_expression``).
        self.checks = 0
        key = next(_keys)
        _principals[key] = self
        authorizer = [key, "", ""]
        #: The ``authorizer`` variable (``NewAuthorizerVal``) with its ``requestResource``
        #: (``NewResourceAuthorizerVal``: the request's own resource, subresource, namespace, name).
        self.value: Json = {**_value(_AUTHORIZER, authorizer),
                            "requestResource": _value(_RESOURCE_CHECK, [*authorizer, *request_resource, "", ""])}

    def begin_expression(self) -> None:
        """An expression is about to be evaluated: its checks are counted from none (the engine
        keeps no runtime cost; a check's is the one that reaches kube's limit)."""
        self.checks = 0


_principals: weakref.WeakValueDictionary[int, Principal] = weakref.WeakValueDictionary()
_keys = itertools.count()


def _value(kind: str, fields: list[Any]) -> Json:
    return {kind: orjson.dumps(fields).decode()}


def _receiver(value: Any, kind: str) -> list[Any]:
    """The list a library value of ``kind`` carries; "no such overload" for any other value."""
    if not isinstance(value, dict) or kind not in value:
        raise LibraryError("no such overload")
    return orjson.loads(value[kind])


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise LibraryError("no such overload")
    return value


def _path(authorizer: Any, path: Any) -> Json:
    if not _string(path).strip():
        raise LibraryError("path must not be empty")
    return _value(_PATH_CHECK, [*_receiver(authorizer, _AUTHORIZER), path])


def _group(authorizer: Any, group: Any) -> Json:
    return _value(_GROUP_CHECK, [*_receiver(authorizer, _AUTHORIZER), _string(group)])


def _service_account(authorizer: Any, namespace: Any, name: Any) -> Json:
    key = _receiver(authorizer, _AUTHORIZER)[0]
    if validation.name_is_dns_subdomain(_string(name), False):
        raise LibraryError("Invalid service account name")
    if validation.name_is_dns_label(_string(namespace), False):
        raise LibraryError("Invalid service account namespace")
    return _value(_AUTHORIZER, [key, namespace, name])


def _resource(group_check: Any, resource: Any) -> Json:
    fields = _receiver(group_check, _GROUP_CHECK)
    if not _string(resource).strip():
        raise LibraryError("resource must not be empty")
    return _value(_RESOURCE_CHECK, [*fields, resource, "", "", "", "", ""])


def _resource_field(field: str) -> Callable[[Any, Any], Json]:
    """The member function setting one field of a resource check (``resourceCheckName``...)."""
    position = _AUTHORIZER_FIELDS + _RESOURCE_FIELDS.index(field)

    def set_field(resource_check: Any, value: Any) -> Json:
        fields = _receiver(resource_check, _RESOURCE_CHECK)
        fields[position] = _string(value)
        return _value(_RESOURCE_CHECK, fields)

    return set_field


def _check(target: Any, verb: Any) -> Json:
    """``pathCheckCheck``/``resourceCheckCheck``: the decision of the principal's authorizer."""
    _string(verb)
    if isinstance(target, dict) and _PATH_CHECK in target:
        key, account_namespace, account_name, path = _receiver(target, _PATH_CHECK)
        check = AccessCheck(verb, False, path=path)
    else:
        key, account_namespace, account_name, group, resource, subresource, namespace, name, _fields, _labels = \
            _receiver(target, _RESOURCE_CHECK)
        check = AccessCheck(verb, True, group=group, resource=resource, subresource=subresource,
                            namespace=namespace, name=name)
    principal = _principals.get(key)
    if principal is None:
        raise LibraryError("the authorizer of a request no longer served")
    principal.checks += 1
    if principal.checks * _CHECK_COST > _PER_CALL_LIMIT:
        raise LibraryError("operation cancelled: actual cost limit exceeded")
    user = principal.user if not account_namespace else _service_account_user(account_namespace, account_name)
    answer = principal.authorize(user, check)
    return _value(_DECISION, [answer.decision, answer.reason, answer.error])


def _service_account_user(namespace: str, name: str) -> Json:
    """``ServiceAccountInfo.UserInfo``: the account's user and groups (not ``system:authenticated``:
    no authenticator made it)."""
    return {"username": f"{_SERVICE_ACCOUNT_PREFIX}{namespace}:{name}",
            "groups": ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"]}


def _allowed(decision: Any) -> bool:
    return _receiver(decision, _DECISION)[0] == ALLOW


def _reason(decision: Any) -> str:
    return _receiver(decision, _DECISION)[1]


def _errored(decision: Any) -> bool:
    return bool(_receiver(decision, _DECISION)[2])


def _error(decision: Any) -> str:
    return _receiver(decision, _DECISION)[2]


#: kube's libraries and the authorizer library (``library.Authz`` and ``AuthzSelectors``).
ADMISSION_LIBRARY = {
    **KUBE_LIBRARY, "path": _path, "group": _group, "serviceAccount": _service_account, "resource": _resource,
    **{field: _resource_field(field) for field in _RESOURCE_FIELDS[2:]},
    "check": _check, "allowed": _allowed, "reason": _reason, "errored": _errored, "error": _error,
}


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
