"""YAML bodies that are JSON take orjson's fast path only when the YAML parser would read them
the same; every other body is left to it."""

from __future__ import annotations

import orjson
import pytest

from fakeapi.machinery.goyaml import GoYAMLError, parse_yaml, yaml_to_json

BODIES = [
    b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}',
    b'{"a":[true,false,null,-3,0,18446744073709551615,"s\\t\\n\\"\\\\"]}\n',
    b'{"a":1,"a":2}',  # a repeated key: the strict decoder's warning
    b'{"a":1e3}',  # a float without a point, printed by Go as 1000
    b'{"a":1e21}',  # ... and as 1e+21
    b'{"a":1.5,"b":-0,"c":30.0}',
    b'{"a":[{"b":[30.0]}],"c":"x"}',  # a float deep in a list
    b'[2.0]',
    b"7.0",  # a document that is a float
    b'{"a":"1.5","b":"x:2e3","c":[1,"[3.0"]}',  # float-like text in strings only: no float
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
    value, repeated = yaml_to_json(body)
    expected, expected_repeated = parse_yaml(body)
    assert (value, repeated) == (expected, expected_repeated)
    assert orjson.dumps(value) == orjson.dumps(expected)  # 30 is not 30.0


@pytest.mark.parametrize("body", [b'{"a":"\x7f"}', b'{"a":"\x01"}'])
def test_characters_yaml_refuses_are_refused(body: bytes) -> None:
    with pytest.raises(GoYAMLError, match="control characters are not allowed"):
        yaml_to_json(body)
