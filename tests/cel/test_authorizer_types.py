"""What ``fakeapi.cel.authorizer_types`` tells of the authorizer library's calls without a type
checker: cel-go's overload errors where a chain's receiver has no such function or the literal
arguments do not fit, and a whole chain's type (the texts are compared with kube's in
tests/kasdiff/test_admission_policies.py)."""

from __future__ import annotations

import pytest

from fakeapi.cel import authorizer_types


@pytest.mark.parametrize(("source", "issues"), [
    ("authorizer.resource('pods').check('get').allowed()",
     ["ERROR: <input>:1:20: found no matching overload for 'resource' applied to "
      "'kubernetes.authorization.Authorizer.(string)'\n | authorizer.resource('pods').check('get').allowed()\n"
      " | ...................^"]),
    ("authorizer.group(1.5).resource('p')",
     ["ERROR: <input>:1:17: found no matching overload for 'group' applied to "
      "'kubernetes.authorization.Authorizer.(double)'\n | authorizer.group(1.5).resource('p')\n"
      " | ................^"]),
    ("authorizer.serviceAccount('a', 'b', true).path('/x')",
     ["ERROR: <input>:1:26: found no matching overload for 'serviceAccount' applied to "
      "'kubernetes.authorization.Authorizer.(string, string, bool)'\n"
      " | authorizer.serviceAccount('a', 'b', true).path('/x')\n | .........................^"]),
    # only the first wrong call of a chain; each chain of the expression
    ("authorizer.path('/x').name('a').name(1) || authorizer.requestResource.allowed()",
     ["ERROR: <input>:1:27: found no matching overload for 'name' applied to "
      "'kubernetes.authorization.PathCheck.(string)'\n"
      " | authorizer.path('/x').name('a').name(1) || authorizer.requestResource.allowed()\n"
      " | ..........................^",
      "ERROR: <input>:1:78: found no matching overload for 'allowed' applied to "
      "'kubernetes.authorization.ResourceCheck.()'\n"
      " | authorizer.path('/x').name('a').name(1) || authorizer.requestResource.allowed()\n"
      " | " + "." * 77 + "^"]),
    # arguments not literals may be dyn: any overload of their arity fits
    ("authorizer.group(object.g).resource(variables.r).namespace(request.namespace).check('get').allowed()", []),
    ("authorizer.group(object.g, 1)", []),
    ("authorizer.requestResource.subresource('s').fieldSelector('a=b').labelSelector('c').check('list').errored()", []),
    ("authorizer.path('/x').check('get').reason() == ''", []),
    ("object.authorizer.resource('x')", []),
])
def test_issues(source: str, issues: list[str]) -> None:
    assert [text for _offset, text in authorizer_types.issues(source)] == issues


@pytest.mark.parametrize(("source", "kind"), [
    ("authorizer.path('/x').check('get')", "kubernetes.authorization.Decision"),
    ("authorizer.requestResource", "kubernetes.authorization.ResourceCheck"),
    ("authorizer.serviceAccount('a', 'b')", "kubernetes.authorization.Authorizer"),
    ("authorizer.group('')", "kubernetes.authorization.GroupCheck"),
    ("authorizer.group('').resource('pods').check('get').allowed()", "bool"),
    ("authorizer.path('/x').check('get').reason()", "string"),
    ("authorizer.path('/x').check('get').allowed() && true", None),
    ("authorizer.group(object.g)", "kubernetes.authorization.GroupCheck"),
    ("authorizer.resource('x')", None),
    ("object.a", None),
])
def test_result_type(source: str, kind: str | None) -> None:
    assert authorizer_types.result_type(source) == kind


@pytest.mark.parametrize(("source", "name"), [
    ("authorizer.requestResource.check('get').reason()", "authorizer.requestResource"),
    ("authorizer.path('/x').check('get').reason() + authorizer.requestResource.check('get').reason()", "authorizer"),
    ("'a' + authorizer.requestResource.name('n').check('get').reason()", "authorizer.requestResource"),
])
def test_first_reference(source: str, name: str) -> None:
    assert authorizer_types.first_reference(source) == name
