"""``fakeapi.machinery.validation`` and ``fakeapi.machinery.quantity`` against apimachinery v0.35.4,
driven by ``tests/validationdiff`` (built here with ``go build``): the format checks, ObjectMeta
and label selector validation, and quantities (parse errors, the canonical string kube stores,
comparison, ``Value``/``MilliValue``), on hand-written and generated values."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakeapi.machinery import quantity, validation

HARNESS = Path(__file__).parents[1] / "validationdiff"


class GoValidation:
    def __init__(self, binary: Path) -> None:
        self.process = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, fn: str, **request: Any) -> dict[str, Any]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({"fn": fn, **request}) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait(10)


@pytest.fixture(scope="session")
def go() -> Iterator[GoValidation]:
    env = dict(os.environ, PATH=f"/usr/local/go/bin:{os.environ.get('PATH', '')}")
    if shutil.which("go", path=env["PATH"]) is None:
        pytest.fail("Go is required for the validation differential tests (make test-deps installs it)")
    subprocess.run(["go", "build", "-o", "bin/validationdiff", "./cmd/validationdiff"], cwd=HARNESS, env=env,
                   check=True)
    harness = GoValidation(HARNESS / "bin" / "validationdiff")
    yield harness
    harness.close()


MESSAGE_CHECKS = {
    "is_dns1123_label": validation.is_dns1123_label,
    "is_dns1123_subdomain": validation.is_dns1123_subdomain,
    "is_dns1035_label": validation.is_dns1035_label,
    "is_wildcard_dns1123_subdomain": validation.is_wildcard_dns1123_subdomain,
    "is_qualified_name": validation.is_qualified_name,
    "is_valid_label_value": validation.is_valid_label_value,
    "is_c_identifier": validation.is_c_identifier,
    "is_valid_port_name": validation.is_valid_port_name,
    "is_valid_percent": validation.is_valid_percent,
    "is_http_header_name": validation.is_http_header_name,
    "is_env_var_name": validation.is_env_var_name,
    "is_relaxed_env_var_name": validation.is_relaxed_env_var_name,
    "is_config_map_key": validation.is_config_map_key,
    "name_is_dns_subdomain": lambda value: validation.name_is_dns_subdomain(value, False),
    "name_is_dns_subdomain_prefix": lambda value: validation.name_is_dns_subdomain(value, True),
}
ERROR_CHECKS = {
    "is_valid_ip": validation.is_valid_ip,
    "is_valid_ip_for_legacy_field": lambda path, value: validation.is_valid_ip_for_legacy_field(path, value, False),
    "is_valid_cidr": validation.is_valid_cidr,
    "is_valid_cidr_for_legacy_field": lambda path, value: validation.is_valid_cidr_for_legacy_field(path, value, False),
    "is_fully_qualified_name": validation.is_fully_qualified_name,
    "is_fully_qualified_domain_name": validation.is_fully_qualified_domain_name,
}

NAMES = [
    "", "a", "my-name", "123-abc", "-a", "a-", "A", "a.b", "a..b", ".a", "a_b", "a" * 63, "a" * 64, "a" * 253,
    "a" * 254, "a." * 126 + "b", "example.com/MyName", "example.com/", "/a", "a/b/c", "Example.com/a", "my.name",
    "My_Value", "12345", "x@y", "ü", "aü", "*.example.com", "*.*.a", "..", ".", "..a", "a b", "TCP", "http",
    "http-alt", "a--b", "-http", "1234", "abcdefghijklmnop", "X-Header", "MY_ENV.NAME", "1abc", "a=b", "key.name",
    "a\tb", "a\n", "10%", "%", "ab%", "kubernetes.io/metadata.name", "k" * 64 + "/a", "p" * 254 + "/a",
]
ADDRESSES = [
    "", "1.2.3.4", "01.2.3.4", "1.2.3", "256.1.1.1", "::1", "::ffff:1.2.3.4", "2001:db8::1", "2001:DB8::1",
    "2001:db8:0:0:0:0:0:1", "fe80::1%eth0", "1.2.3.4/24", "1.2.3.0/24", "01.2.3.0/24", "1.2.3.0/024", "::/0",
    "2001:db8::/64", "2001:db8::1/64", "::ffff:1.2.3.0/120", "10.0.0.0/33", "10.0.0.0/", "abc", "1.2.3.4 ",
    "0.0.0.0", "0.0.0.0/0", "2001:0db8::/32", "10.0.0.0/8", "10.0.0.1/8",
]
QUANTITIES = [
    "0", "1", "0.5", "500m", "1000m", "1.5Gi", "1536Mi", "1Gi", "1024Mi", "1024", "1023", "1k", "1000", "1e3",
    "1E3", "+1Ki", "01", "00", "-1", "-0.5", "0.1Gi", "100Mi", "128974848", "129e6", "129M", "123Mi", "1.5",
    "1.0", ".5", "5.", ".", "+", "-", "1n", "0.0000000001", "1.0000000001", "12345678901234567890",
    "123456789012345678901234567890", "8Ei", "7Ei", "16Ei", "1000E", "1e-9", "1e-10", "1e18", "1e21", "1Mi.5",
    "1 ", " 1", "1x", "Mi", "1.5.5", "1e", "1e+3", "1e-3", "2.5Ki", "0.5Ki", "100m", "250m", "4", "10Gi",
    "3.5", "1u", "1.5n", "999999999999999999", "9223372036854775807", "9223372036854775808", "1.5e3", "1Ki1",
    "-1Ki", "-1.5Gi", "1m", "1000000000n", "1.000", "2000", "200Gi", "0.25", "7.5Gi", "64Mi", "1P", "1.5T",
]


@pytest.mark.parametrize("fn", sorted(MESSAGE_CHECKS))
def test_format_checks_are_upstreams(go: GoValidation, fn: str) -> None:
    for value in NAMES:
        assert MESSAGE_CHECKS[fn](value) == go.ask(fn, value=value)["messages"], (fn, value)


def _errors(answer: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(e["field"], e["type"], e["body"]) for e in answer["errors"]]


@pytest.mark.parametrize("fn", sorted(ERROR_CHECKS))
def test_address_checks_are_upstreams(go: GoValidation, fn: str) -> None:
    for value in ADDRESSES + NAMES[:20]:
        assert ERROR_CHECKS[fn]("f", value) == _errors(go.ask(fn, value=value)), (fn, value)


def test_ip_warnings_are_upstreams(go: GoValidation) -> None:
    for value in ADDRESSES:
        if validation.parse_ip_sloppy(value) is not None:
            assert validation.warnings_for_ip("f", value) == go.ask("warnings_for_ip", value=value)["messages"], value


def test_port_numbers(go: GoValidation) -> None:
    for port in (-1, 0, 1, 80, 65535, 65536):
        assert validation.is_valid_port_num(port) == go.ask("is_valid_port_num", int=port)["messages"]


def _check_quantity(go: GoValidation, text: str, other: str = "1") -> None:
    answer = go.ask("quantity", value=text, other=other)
    try:
        parsed = quantity.parse(text)
    except quantity.QuantityError as err:
        assert str(err) == answer["error"], text
        return
    assert not answer["error"], (text, answer["error"])
    assert str(parsed) == answer["text"], text
    try:
        assert parsed.cmp(quantity.parse(other)) == answer["cmp"], (text, other)
    except quantity.QuantityError:
        pass
    if abs(parsed.scale) < 40 and parsed.sign() >= 0:
        # Go's Value/MilliValue wrap outside int64, and round negative values one way or the other
        # depending on the representation earlier calls left: compare in range, positive only.
        if parsed.milli_value() < 2**63:
            assert (parsed.value(), parsed.milli_value()) == (answer["value"], answer["milli"]), text


def test_quantities_are_upstreams(go: GoValidation) -> None:
    for i, text in enumerate(QUANTITIES):
        _check_quantity(go, text, QUANTITIES[(i * 7 + 3) % len(QUANTITIES)])


_QUANTITY_TEXT = st.builds(
    lambda sign, whole, fraction, suffix: sign + whole + fraction + suffix,
    st.sampled_from(["", "", "-", "+"]),
    st.text("0123456789", max_size=22),
    st.one_of(st.just(""), st.text("0123456789", max_size=12).map(lambda digits: "." + digits)),
    st.sampled_from(["", "m", "n", "u", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3",
                     "e-2", "E10", "e0", "i", "e"]),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_QUANTITY_TEXT, other=_QUANTITY_TEXT)
def test_generated_quantities_are_upstreams(go: GoValidation, text: str, other: str) -> None:
    _check_quantity(go, text, other)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(st.sampled_from("abcAZ019-._/@ü*"), max_size=70))
def test_generated_names_are_upstreams(go: GoValidation, value: str) -> None:
    for fn in ("is_qualified_name", "is_valid_label_value", "is_dns1123_subdomain", "is_dns1123_label",
               "is_config_map_key", "is_env_var_name"):
        assert MESSAGE_CHECKS[fn](value) == go.ask(fn, value=value)["messages"], (fn, value)


OBJECT_METAS = [
    ({"name": "ok", "namespace": "default", "labels": {"app": "web"}}, True),
    ({"name": "Bad_Name", "namespace": "default"}, True),
    ({"generateName": "gen-", "name": "gen-abcde", "namespace": "default"}, True),
    ({"generateName": "Gen_", "name": "gen-abcde", "namespace": "default"}, True),
    ({"name": "", "namespace": "default"}, True),
    ({"name": "ok"}, True),
    ({"name": "ok", "namespace": "Bad"}, True),
    ({"name": "ok", "namespace": "default"}, False),
    ({"name": "ok", "labels": {"a": "b c"}}, False),
    ({"name": "ok", "labels": {"a/b/c": "x", "-bad": "y" * 70}}, False),
    ({"name": "ok", "annotations": {"Example.com/Key": "v", "bad key": "v"}}, False),
    ({"name": "ok", "annotations": {"big": "x" * 262140}}, False),
    ({"name": "ok", "finalizers": ["example.com/f", "bad finalizer", "orphan", "foregroundDeletion"]}, False),
    ({"name": "ok", "ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1", "controller": True},
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs2", "uid": "u2", "controller": True},
        {"apiVersion": "", "kind": "", "name": "", "uid": ""},
        {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u3", "blockOwnerDeletion": True}]}, False),
    ({"name": "ok", "generation": -1}, False),
    ({"name": "ok", "managedFields": [{"manager": "m", "operation": "Patch", "fieldsType": "FieldsV2"},
                                      {"manager": "x" * 129, "operation": "Apply", "subresource": "s" * 257},
                                      {"manager": "bad\u0007", "operation": "Update"}]}, False),
]


@pytest.mark.parametrize("meta, namespaced", OBJECT_METAS)
def test_object_meta_is_upstreams(go: GoValidation, meta: dict[str, Any], namespaced: bool) -> None:
    expected = _errors(go.ask("object_meta", meta=meta, int=1 if namespaced else 0))
    actual = validation.validate_object_meta(meta, namespaced, validation.name_is_dns_subdomain)
    assert sorted(actual) == sorted(expected)  # Go walks maps in random order
    if len(meta.get("labels", {})) <= 1 and len(meta.get("annotations", {})) <= 1:
        assert actual == expected


OLD_META = {"name": "ok", "namespace": "default", "uid": "u1", "resourceVersion": "5", "generation": 3,
            "creationTimestamp": "2024-01-01T00:00:00Z", "finalizers": ["a/b"]}
META_UPDATES = [
    {**OLD_META},
    {**OLD_META, "resourceVersion": ""},
    {**OLD_META, "generation": 2},
    {**OLD_META, "name": "other", "namespace": "other", "uid": "u2", "creationTimestamp": "2025-01-01T00:00:00Z"},
    {**OLD_META, "deletionTimestamp": "2025-01-01T00:00:00Z", "deletionGracePeriodSeconds": 30},
    {**OLD_META, "labels": {"a": "b c"}},
]


@pytest.mark.parametrize("new", META_UPDATES)
def test_object_meta_update_is_upstreams(go: GoValidation, new: dict[str, Any]) -> None:
    for old in (OLD_META, {**OLD_META, "deletionTimestamp": "2024-06-01T00:00:00Z"}):
        changed = {**new, "finalizers": ["a/b", "c/d"]} if old is not OLD_META else new
        expected = _errors(go.ask("object_meta_update", meta=changed, old=old))
        assert validation.validate_object_meta_update(changed, old) == expected


SELECTORS = [
    {"matchLabels": {"app": "web"}},
    {"matchLabels": {"app": "b c"}},
    {"matchExpressions": [{"key": "a", "operator": "In"}]},
    {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
    {"matchExpressions": [{"key": "bad key", "operator": "Foo", "values": ["x y"]}]},
    {"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["ok", "not ok"]}]},
]


@pytest.mark.parametrize("selector", SELECTORS)
def test_label_selectors_are_upstreams(go: GoValidation, selector: dict[str, Any]) -> None:
    expected = _errors(go.ask("label_selector", meta=selector))
    assert validation.validate_label_selector(selector, validation.DEFAULT_LABEL_SELECTOR_OPTIONS, "selector") == expected
