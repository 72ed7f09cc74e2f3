"""The environments of admission policies' expressions (``fakeapi.cel.admission``) and the
result types ``checks.result_type`` tells without a type checker, as kube's policy validation
reports them (``must evaluate to bool but got dyn``)."""

from __future__ import annotations

import pytest

from fakeapi.cel import admission
from fakeapi.cel.checks import result_type
from fakeapi.cel.engine import CompileError

DYNAMIC = frozenset(("object", "oldObject", "params"))


@pytest.mark.parametrize(("source", "expected"), [
    ("object.data.a", "dyn"),
    ("params", "dyn"),
    ("'x'", "string"),
    ("'a' + object.b", "string"),
    ("1 + 2", "int"),
    ("1.5", "double"),
    ("request.name", "string"),
    ("request.userInfo.groups", "list(string)"),
    ("request.name == 'x'", "bool"),
    ("has(object.a)", None),
    ("object.a ? 'x' : 'y'", None),
    ("object.data['a']", None),
])
def test_result_type(source: str, expected: str | None) -> None:
    assert result_type(source, admission.schemas(None), DYNAMIC) == expected


def test_declared_variables() -> None:
    with pytest.raises(CompileError, match="undeclared reference to 'params'"):
        admission.environment(False, True, False).compile("params.a")
    with pytest.raises(CompileError, match="undeclared reference to 'authorizer'"):
        admission.environment(True, False, True).compile("authorizer.group('')")
    admission.environment(True, True, True).compile("params.a == variables.b")
