"""Continue tokens against kube-apiserver's ``storage.EncodeContinue``/``DecodeContinue``.

Expected tokens and messages were produced by upstream's ``continue.go`` (Go's base64 and
``encoding/json``); kube-apiserver wraps decoding errors as ``invalid continue token: <error>``.
"""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakeapi.machinery import continue_token
from fakeapi.machinery.status import StatusError


def token(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@pytest.mark.parametrize(("rv", "start", "expected"), [
    (12, "default/web-1\x00",
     "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIsInN0YXJ0IjoiZGVmYXVsdC93ZWItMVx1MDAwMCJ9"),
    # Go's json.Marshal escapes <, > and & for HTML
    (-1, "a<b>&c", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiYVx1MDAzY2JcdTAwM2VcdTAwMjZjIn0"),
])
def test_encode_is_byte_for_byte_upstreams(rv: int, start: str, expected: str) -> None:
    assert continue_token.encode(rv, start) == expected
    assert continue_token.decode(expected) == (rv, start)


@given(
    rv=st.integers(-(2**63), 2**63 - 1).filter(bool),
    segments=st.lists(st.text(st.characters(exclude_categories=["Cs"], exclude_characters="/"), min_size=1)
                      .filter(lambda s: s not in (".", "..")), min_size=1, max_size=4),
)
def test_round_trip(rv: int, segments: list[str]) -> None:
    start = "/".join(segments)
    assert continue_token.decode(continue_token.encode(rv, start)) == (rv, start)


@pytest.mark.parametrize(("raw", "expected"), [
    (b'{"V":"meta.k8s.io/v1","Rv":7,"START":"ns/b"}', (7, "ns/b")),  # Go matches keys case-insensitively
    (b'{"v":"meta.k8s.io/v1","rv":7,"start":"/ns/b"}', (7, "ns/b")),  # a leading "/" is dropped
    (b'{"v":"meta.k8s.io/v1","rv":7,"start":"a","extra":[{}]}', (7, "a")),  # unknown keys are ignored
])
def test_decode_accepts_what_upstream_accepts(raw: bytes, expected: tuple[int, str]) -> None:
    assert continue_token.decode(token(raw)) == expected


def test_newlines_in_the_base64_are_ignored() -> None:
    assert continue_token.decode(token(b'{"v":"meta.k8s.io/v1","rv":7,"start":"a"}') + "\n") == (7, "a")


NOT_VALID = "invalid continue token: continue key is not valid"


@pytest.mark.parametrize(("value", "message"), [
    # base64
    ("eyJ2Ijoi=", "illegal base64 data at input byte 8"),
    ("eyJ2!", "illegal base64 data at input byte 4"),
    ("e", "illegal base64 data at input byte 0"),
    # JSON syntax, as Go's scanner reports it
    ("", "unexpected end of JSON input"),
    (token(b"not json"), "invalid character 'o' in literal null (expecting 'u')"),
    (token(b'{"v":"meta.k8s.io/v1",}'), "invalid character '}' looking for beginning of object key string"),
    (token(b'{"v":"meta.k8s.io/v1","rv":7,"start":"a"} x'), "invalid character 'x' after top-level value"),
    (token(b'{"v":"meta.k8s.io/v1","rv":7,"start":"a\\x"}'), "invalid character 'x' in string escape code"),
    # JSON types
    (token(b'{"v":"meta.k8s.io/v1","rv":"12","start":"a"}'),
     "json: cannot unmarshal string into Go struct field continueToken.rv of type int64"),
    (token(b'{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}'),
     "json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64"),
    (token(b'{"v":"meta.k8s.io/v1","rv":99999999999999999999,"start":"a"}'),
     "json: cannot unmarshal number 99999999999999999999 into Go struct field continueToken.rv of type int64"),
    (token(b'{"v":1}'), "json: cannot unmarshal number into Go struct field continueToken.v of type string"),
    (token(b"[1]"), "json: cannot unmarshal array into Go value of type storage.continueToken"),
])
def test_undecodable_tokens(value: str, message: str) -> None:
    with pytest.raises(StatusError) as err:
        continue_token.decode(value)
    assert (err.value.code, err.value.reason) == (400, "BadRequest")
    assert err.value.message == f"{NOT_VALID}: {message}"


@pytest.mark.parametrize(("raw", "message"), [
    (b'{"v":"meta.k8s.io/v2","rv":7,"start":"a"}', ": server does not recognize this encoded version meta.k8s.io/v2"),
    (b"null", ": server does not recognize this encoded version "),
    (b'{"v":"meta.k8s.io/v1","rv":0,"start":"a"}', ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
    (b'{"v":"meta.k8s.io/v1","rv":7,"start":""}', ": encoded start key empty (version meta.k8s.io/v1)"),
    (b'{"v":"meta.k8s.io/v1","rv":7,"start":"../other"}', ": ../other"),
    (b'{"v":"meta.k8s.io/v1","rv":7,"start":"a/./b"}', ": a/./b"),
    (b'{"v":"meta.k8s.io/v1","rv":7,"start":"//a"}', ": //a"),
    (b'{"v":"meta.k8s.io/v1","rv":7,"start":"a/"}', ": a/"),
])
def test_refused_tokens(raw: bytes, message: str) -> None:
    with pytest.raises(StatusError) as err:
        continue_token.decode(token(raw))
    assert err.value.message == NOT_VALID + message


def test_deep_nesting_does_not_exhaust_the_stack() -> None:
    raw = b'{"x":' + b"[" * 5000 + b"]" * 5000 + b',"v":"meta.k8s.io/v1","rv":3,"start":"a"}'
    assert continue_token.decode(token(raw)) == (3, "a")
