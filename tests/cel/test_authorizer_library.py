"""kube's authorizer library (``library.Authz``) as ``fakeapi.cel.admission`` serves it: what each
chain asks the server's authorizer (an ``AccessCheck`` for the principal's user), what a decision
tells, and kube's errors for arguments the library refuses (the answers of a real RBAC server are
compared in tests/kasdiff/test_admission_policies.py)."""

from __future__ import annotations

import gc

import pytest

from fakeapi.cel import admission
from fakeapi.cel.access import ALLOW, DENY, NO_OPINION, AccessCheck, AccessDecision
from fakeapi.cel.admission import Principal
from fakeapi.cel.engine import Activation, EvaluationError

JANE = {"username": "jane", "uid": "jane-uid", "groups": ["devs", "system:authenticated"]}
#: The request's resource: a deployment's scale in ``ns``.
REQUESTED = ("apps", "deployments", "scale", "ns", "web")


class Recorder:
    """An authorizer answering ``answer`` to every question, recording (user, check)."""

    def __init__(self, answer: AccessDecision = AccessDecision(ALLOW, "granted")) -> None:
        self.answer = answer
        self.asked: list[tuple[str, AccessCheck]] = []

    def __call__(self, user: dict, check: AccessCheck) -> AccessDecision:
        self.asked.append((user["username"], check))
        return self.answer


def evaluate(source: str, principal: Principal) -> object:
    activation = Activation({"object": {}, "oldObject": None, "request": {}, "namespaceObject": None,
                             "authorizer": principal.value})
    return admission.environment(False, True, False).compile(source).evaluate(activation)


@pytest.mark.parametrize(("source", "check"), [
    ("authorizer.group('apps').resource('deployments').namespace('ns').check('delete')",
     AccessCheck("delete", True, group="apps", resource="deployments", namespace="ns")),
    ("authorizer.group('').resource('pods').subresource('log').namespace('a').name('p').check('get')",
     AccessCheck("get", True, resource="pods", subresource="log", namespace="a", name="p")),
    # the last call of a field wins, and "" unsets it
    ("authorizer.group('').resource('pods').name('p').name('').namespace('a').namespace('b').check('list')",
     AccessCheck("list", True, resource="pods", namespace="b")),
    # selectors are carried but not asked about (fakeapi's authorizers decide without them)
    ("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n').labelSelector('a=b').check('list')",
     AccessCheck("list", True, resource="pods")),
    ("authorizer.path('/healthz').check('get')", AccessCheck("get", False, path="/healthz")),
    ("authorizer.requestResource.check('update')",
     AccessCheck("update", True, group="apps", resource="deployments", subresource="scale", namespace="ns",
                 name="web")),
    ("authorizer.requestResource.subresource('').name('other').check('get')",
     AccessCheck("get", True, group="apps", resource="deployments", namespace="ns", name="other")),
])
def test_a_chain_asks_for_the_requests_user(source: str, check: AccessCheck) -> None:
    recorder = Recorder()
    principal = Principal(recorder, JANE, REQUESTED)
    assert evaluate(f"{source}.allowed()", principal) is True
    assert recorder.asked == [("jane", check)]


def test_a_service_account_is_checked_as_its_user_and_groups() -> None:
    asked: list[dict] = []

    def authorize(user: dict, check: AccessCheck) -> AccessDecision:
        asked.append(user)
        return AccessDecision(NO_OPINION)

    principal = Principal(authorize, JANE, REQUESTED)
    assert evaluate("authorizer.serviceAccount('team-a', 'robot.v1').path('/metrics').check('get').allowed()",
                    principal) is False
    assert asked == [{"username": "system:serviceaccount:team-a:robot.v1",
                      "groups": ["system:serviceaccounts", "system:serviceaccounts:team-a"]}]


@pytest.mark.parametrize(("answer", "expected"), [
    (AccessDecision(ALLOW, "RBAC: allowed by RoleBinding"), [True, "RBAC: allowed by RoleBinding", False, ""]),
    (AccessDecision(DENY, "denied"), [False, "denied", False, ""]),
    (AccessDecision(NO_OPINION, "", "role not found"), [False, "", True, "role not found"]),
])
def test_a_decision_tells_the_authorizers_answer(answer: AccessDecision, expected: list) -> None:
    principal = Principal(Recorder(answer), JANE, REQUESTED)
    told = []
    for accessor in ("allowed", "reason", "errored", "error"):
        principal.begin_expression()
        told.append(evaluate(f"authorizer.path('/x').check('get').{accessor}()", principal))
    assert told == expected


@pytest.mark.parametrize(("source", "error"), [
    ("authorizer.path('  ')", "path must not be empty"),
    ("authorizer.group('').resource(' ')", "resource must not be empty"),
    ("authorizer.serviceAccount('ns', 'Not_A_Name')", "Invalid service account name"),
    # the name is validated first
    ("authorizer.serviceAccount('Not_A_Label', 'Not_A_Name')", "Invalid service account name"),
    ("authorizer.serviceAccount('a.b', 'robot')", "Invalid service account namespace"),
    ("authorizer.check('get')", "no such overload"),
    ("authorizer.resource('pods')", "no such overload"),
    ("authorizer.group('').check('get')", "no such overload"),
    ("authorizer.path('/x').namespace('a')", "no such overload"),
    ("authorizer.group(1)", "no such overload"),
    ("authorizer.group('').resource('pods').allowed()", "no such overload"),
    ("object.allowed()", "no such overload"),
])
def test_kubes_errors(source: str, error: str) -> None:
    recorder = Recorder()
    with pytest.raises(EvaluationError) as raised:
        evaluate(source, Principal(recorder, JANE, REQUESTED))
    assert str(raised.value) == error
    assert recorder.asked == []


def test_a_value_outliving_its_principal_checks_for_nobody() -> None:
    value = Principal(Recorder(), JANE, REQUESTED).value
    gc.collect()
    program = admission.environment(False, True, False).compile("authorizer.path('/x').check('get').allowed()")
    with pytest.raises(EvaluationError, match="the authorizer of a request no longer served"):
        program.evaluate({"object": {}, "oldObject": None, "request": {}, "namespaceObject": None,
                          "authorizer": value})


def test_an_expression_makes_two_checks() -> None:
    """kube charges a check 350000 of an expression's 1000000: the third is cancelled, and the
    next expression counts from none."""
    recorder = Recorder()
    principal = Principal(recorder, JANE, REQUESTED)
    two = "authorizer.path('/a').check('get').allowed() && authorizer.path('/b').check('get').allowed()"
    assert evaluate(two, principal) is True
    with pytest.raises(EvaluationError) as raised:
        evaluate(f"{two} && authorizer.requestResource.check('get').allowed()", principal)
    assert str(raised.value) == "operation cancelled: actual cost limit exceeded"
    principal.begin_expression()
    assert evaluate(f"{two} && true", principal) is True
    principal.begin_expression()
    with pytest.raises(EvaluationError, match="actual cost limit exceeded"):
        evaluate(f"{two} && authorizer.requestResource.check('get').allowed()", principal)
    assert len(recorder.asked) == 6
