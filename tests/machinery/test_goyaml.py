"""YAML bodies that are JSON take orjson's fast path only when the YAML parser would read them
the same; every other body is left to it."""

from __future__ import annotations

import pytest

from fakeapi.machinery.goyaml import GoYAMLError, parse_yaml, yaml_to_json

BODIES = [
    b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}',
    b'{"a":[true,false,null,-3,0,18446744073709551615,"s\\t\\n\\"\\\\"]}\n',
    b'{"a":1,"a":2}',  # a repeated key: the strict decoder's warning
    b'{"a":1e3}',  # a float without a point, printed by Go as 1000
    b'{"a":1e21}',  # ... and as 1e+21
    b'{"a":1.5,"b":-0,"c":30.0}',
    b'{"a":"\\u00e9","b":"\\/"}',  # escapes orjson would not write
    b'{"a":"\xc2\x85"}',  # NEL folds inside a YAML string
    b'{"a": 1}',  # not compact
    b'[1,2]',
    b'"s"',
    b"null",
    b"a: 1\nb: [x, y]\n",
]


@pytest.mark.parametrize("body", BODIES)
def test_json_bodies_read_as_the_yaml_parser_reads_them(body: bytes) -> None:
    assert yaml_to_json(body) == parse_yaml(body)


@pytest.mark.parametrize("body", [b'{"a":"\x7f"}', b'{"a":"\x01"}'])
def test_characters_yaml_refuses_are_refused(body: bytes) -> None:
    with pytest.raises(GoYAMLError, match="control characters are not allowed"):
        yaml_to_json(body)
