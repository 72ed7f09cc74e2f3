"""cel-go's ``string.format`` (``fakeapi.cel.formatting``): each expression's result and error
as a throwaway Go program running cel-go v0.26 in kube 1.35's environment printed them."""

from __future__ import annotations

import pytest

from fakeapi.cel.engine import CompileError, Environment, EvaluationError

ENV = Environment(("self",))

#: (expression, cel-go's result)
RESULTS = [
    ("'%f'.format([1234567.891])", '1,234,567.891000'),
    ("'%.2f'.format([1.005])", '1.00'),
    ("'%f'.format(['NaN'])", 'NaN'),
    ("'%.3f'.format(['Infinity'])", '∞'),
    ("'%d'.format([1234567])", '1234567'),
    ("'%s'.format([1234567.5])", '1.2345675e+06'),
    ("'%s'.format([[1, 'a', 2.0]])", '[1, "a", 2.000000]'),
    ("'%x'.format([-255])", '-ff'),
    ("'%b'.format([true])", '1'),
    ("'%o'.format([-8])", '-10'),
    ("'%s'.format([{'b': 1, 'a': 2}])", '{"a":2, "b":1}'),
    ("'%s'.format([duration('1.5s')])", '1.5s'),
    ("'%s'.format([timestamp('2020-01-01T00:00:00Z')])", '2020-01-01T00:00:00Z'),
    ("'%s'.format([b'ab'])", 'ab'),
    ("'%d'.format([2u])", '2'),
    ("'%.2f'.format([-0.0])", '0.00'),
    ("'%f'.format([1e21])", '1,000,000,000,000,000,000,000.000000'),
    ("'%s'.format([1e21])", '1e+21'),
    ("'%s'.format([0.1])", '0.1'),
    ("'%s'.format([type(1)])", 'int'),
    ("'%.2f'.format([-0.001])", '-0.00'),
    ("'%.1f'.format([-1234.56])", '-1,234.6'),
    ("'%f'.format([0.000001234])", '0.000001'),
    ('\'%s\'.format([[1.0/0.0, \'a"b\', b\'x\', null, true, [2u]]])', '["+Inf", "a\\"b", b"x", null, true, [2]]'),
    ("'%s'.format([{'b': 1, 'a': {'c': duration('3600s')}}])", '{"a":{"c":duration("3600s")}, "b":1}'),
    ("'%s'.format([[timestamp('2020-01-01T00:00:00.120Z')]])", '[timestamp("2020-01-01T00:00:00.12Z")]'),
    ("'%e'.format([-1.5e-7])", '-1.500000×10⁻⁰⁷'),
    ("'%s'.format([123456.0])", '123456'),
    ("'%s'.format([0.0001])", '0.0001'),
    ("'%s'.format([0.00001])", '1e-05'),
    ("'%s'.format([-0.0])", '-0'),
    ("'%s'.format([duration('1ms')])", '0.001s'),
    ("'%b'.format([-5])", '-101'),
    ("'%X'.format(['hé'])", '68C3A9'),
    ("'%.1f'.format([0.05])", '0.1'),
    ("'%.1f'.format([0.25])", '0.2'),
    ("'%e'.format([0.5e-323])", '4.940656×10⁻³²⁴'),
    ("'%e'.format([1.5])", '1.500000×10⁰⁰'),
    ("'%.20e'.format([1.5])", '       1.500000×10⁰⁰'),
    ("'%.14e'.format([-1.5])", '-1.500000×10⁰⁰'),
    ("'%e'.format([1.5e100])", '1.500000×10¹⁰⁰'),
    ("'%e'.format([0.0])", '0.000000×10⁰⁰'),
    ("'%e'.format([123456.789])", '1.234568×10⁰⁵'),
    ("'%e'.format(['NaN'])", '   NaN'),
    ("'%e'.format(['-Infinity'])", '    -∞'),
    ("'%e'.format([-0.0])", '0.000000×10⁰⁰'),
    ("'%s'.format(['a\\x01é\\u2028'])", 'a\x01é\u2028'),
    ("'%s'.format([['a\\x01é\\u2028\\U0001F600']])", '["a\\x01é\\u2028😀"]'),
    ("'%s'.format([[-0.0, 0.1]])", '[-0.000000, 0.100000]'),
    ("'%s'.format([duration('-1.5s')])", '-1.5s'),
    ("'%s'.format([[duration('0s')]])", '[duration("0s")]'),
    ("'%s'.format([1e-7])", '1e-07'),
    ("'%s'.format([123456789012.0])", '1.23456789012e+11'),
    ("'%%%s%%'.format(['x'])", '%x%'),
]


@pytest.mark.parametrize(("source", "result"), RESULTS)
def test_format_writes_what_cel_go_writes(source: str, result: str) -> None:
    assert ENV.compile(source).evaluate({"self": [3, 1, 2]}) == result


#: (expression over ``self``, the list [3, 1, 2], cel-go's runtime error)
ERRORS = [
    ("'%f'.format(self)", "error during formatting: fixed-point clause can only be used on doubles, was given int"),
    ("'%x'.format([self])",
     "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given list"),
]


@pytest.mark.parametrize(("source", "message"), ERRORS)
def test_format_fails_as_cel_go_fails(source: str, message: str) -> None:
    with pytest.raises(EvaluationError) as raised:
        ENV.compile(source).evaluate({"self": [3, 1, 2]})
    assert str(raised.value) == message


#: (expression, cel-go's compile error: a constant format string checked against a list
#: literal's arguments)
COMPILE_ERRORS = [
    ("'%f'.format([1])", 14, "error during formatting: fixed-point clause can only be used on doubles, was given int"),
    ("'%s %s'.format([1])", 15, "index 1 out of range"),
    ("'%5d'.format([1])", 13, 'could not parse formatting clause: unrecognized formatting clause "5"'),
    ("'%s'.format([1, 2]) == 'x'", 12, "too many arguments supplied to string.format (expected 1, got 2)"),
    ("'%d %s'.format([[1], [b'', {1: 1.5}]])", 17,
     "error during formatting: decimal clause can only be used on integers, was given list"),
]


@pytest.mark.parametrize(("source", "column", "message"), COMPILE_ERRORS)
def test_a_constant_format_is_checked_when_compiled(source: str, column: int, message: str) -> None:
    with pytest.raises(CompileError) as raised:
        ENV.compile(source)
    assert str(raised.value).split("\n")[0] == f"ERROR: <input>:1:{column}: {message}"


def test_a_format_of_what_is_no_literal_is_checked_when_evaluated() -> None:
    assert ENV.compile("'%d'.format(self)").evaluate({"self": [1]}) == "1"
