"""Field sets, values and managedFields (``machinery.fieldpath``, ``value``, ``managed_fields``).

Expected FieldsV1 texts and path strings follow structured-merge-diff v4.4.2's
``fieldpath/serialize_test.go``, ``element_test.go`` and ``set_test.go``; entry ordering and
identifiers follow apimachinery's ``managedfields/internal/managedfields_test.go``.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakeapi.machinery.fieldpath import FieldSet, PathElement, VersionedSet, element_parts, item_parts, path_string
from fakeapi.machinery.managed_fields import (
    Managed,
    ManagedFieldsError,
    decode_managed_fields,
    encode_managed_fields,
    is_reset,
    manager_identifier,
)
from fakeapi.machinery.value import compare_values, go_json, order_key

F, K, V, I = PathElement.field, PathElement.key, PathElement.value, PathElement.index


def fields_json(fields: FieldSet) -> str:
    return json.dumps(fields.to_fields(), separators=(",", ":"))


@pytest.mark.parametrize(("text", "paths"), [
    ('{"f:a":{}}', [".a"]),
    ('{"f:a":{".":{},"f:b":{}}}', [".a", ".a.b"]),
    ('{"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{".":{},"f:image":{}}}}}',
     ['.spec.containers[name="app"]', '.spec.containers[name="app"].image']),
    ('{"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{}}}',
     ['.ports[containerPort=80,protocol="TCP"]']),
    ('{"f:finalizers":{"v:\\"a\\"":{},"v:\\"b\\\\u003c\\"":{}}}', ['.finalizers[="a"]', '.finalizers[="b<"]']),
    ('{"f:list":{"i:0":{},"i:10":{}}}', [".list[0]", ".list[10]"]),
])
def test_fields_v1_round_trip(text: str, paths: list[str]) -> None:
    fields = FieldSet.from_fields(json.loads(text))
    assert [path_string(p) for p in fields.iterate()] == paths
    assert fields_json(fields) == text


def test_fields_v1_orders_keys_like_go() -> None:
    # field names before keys before values before indices; values: numbers, strings, bools
    fields = FieldSet.of((I(1),), (V("x"),), (V(2),), (V(True),), (K({"b": 1, "a": "z"}),), (F("z"),), (F("a"),))
    assert list(fields.to_fields()) == ["f:a", "f:z", 'k:{"a":"z","b":1}', "v:2", 'v:"x"', "v:true", "i:1"]


def test_decoding_skips_unknown_kinds_and_rejects_bad_keys() -> None:
    assert fields_json(FieldSet.from_fields({"f:a": {"x:y": {}}})) == '{"f:a":{}}'
    with pytest.raises(ValueError):
        FieldSet.from_fields({"k:notjson": {}})
    with pytest.raises(ValueError, match="missing colon"):
        FieldSet.from_fields({"fa": {}})


def test_set_operations() -> None:
    a = FieldSet.of((F("m"),), (F("m"), F("x")), (F("m"), F("y")), (F("n"),))
    b = FieldSet.of((F("m"), F("y")), (F("n"),), (F("o"),))
    assert str(a.union(b)) == ".m\n.n\n.o\n.m.x\n.m.y"
    assert str(a.intersection(b)) == ".n\n.m.y"
    assert str(a.difference(b)) == ".m\n.m.x"
    assert str(a.recursive_difference(FieldSet.of((F("m"),)))) == ".n"
    assert a.difference(a).empty and a.has((F("m"), F("x"))) and not a.has((F("m"), F("z")))


def test_values_compare_as_go() -> None:
    assert compare_values(1, 1.0) == 0 and compare_values(1, "a") < 0 and compare_values("a", True) < 0
    assert compare_values([1], [1, 2]) < 0 and compare_values({}, None) < 0
    assert V(1) == V(1.0) and V(1) != V(True)


_SCALARS = (st.none() | st.booleans() | st.integers(min_value=-2**63, max_value=2**64)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=2), inner, max_size=3), max_leaves=8)


@given(st.lists(_VALUES, max_size=6))
def test_order_keys_sort_values_as_compare_values(values: list[object]) -> None:
    # Equal values may come out in either order, so compare the orders through compare_values.
    by_key = sorted(values, key=order_key)
    assert all(compare_values(a, b) <= 0 for a, b in zip(by_key, by_key[1:]))
    for a in values:
        for b in values:
            assert (order_key(a) < order_key(b)) == (compare_values(a, b) < 0), (a, b)


@given(st.lists(st.dictionaries(st.sampled_from("ab"), _SCALARS, min_size=1), max_size=5), st.lists(_VALUES, max_size=4))
def test_path_elements_sort_as_go_compares_them(keys: list[dict[str, object]], values: list[object]) -> None:
    elements = [K(key) for key in keys] + [V(value) for value in values] + [F("a"), I(0)]
    ordered = sorted(elements, key=lambda element: element.sort_key)
    assert all(a.compare(b) <= 0 for a, b in zip(ordered, ordered[1:]))


@given(st.lists(st.dictionaries(st.sampled_from(["name", "port", "zone"]), _SCALARS), max_size=6),
       st.sampled_from([(), ("name",), ("port", "name"), ("zone", "port", "name")]))
def test_item_parts_are_the_item_keys_parts(items: list[dict[str, object]], names: tuple[str, ...]) -> None:
    # The parts made without an element are the element's whenever they are made at all, and
    # identities are equal exactly when the elements are.
    made = {}
    for item in [*items, *(value for item in items for value in item.values())]:
        parts = item_parts(names, item)
        if parts is not None:
            element = K({name: item[name] for name in names}) if names else V(item)  # type: ignore[index]
            assert parts == element_parts(element)
            made[element] = parts
    for element, parts in made.items():
        assert all((parts.identity == other.identity) == (element == other_element)
                   for other_element, other in made.items())


@given(st.recursive(st.just({}), lambda inner: st.dictionaries(
    st.sampled_from(["f:a", "f:b", 'k:{"name":"x"}', "v:1", "i:0"]), inner, min_size=1), max_leaves=10))
def test_a_set_made_from_its_fields_reads_them_as_from_fields(fields: dict[str, object]) -> None:
    decoded = FieldSet.from_fields(fields)
    if decoded.empty:
        return
    made = FieldSet.of_fields(decoded.to_fields())
    assert not made.empty and made.to_fields() == decoded.to_fields()
    assert made == decoded and list(made.iterate()) == list(decoded.iterate())
    assert str(made.union(FieldSet.of((F("c"),)))) == str(decoded.union(FieldSet.of((F("c"),))))


@pytest.mark.parametrize(("value", "text"), [
    ("a<b>&", '"a\\u003cb\\u003e\\u0026"'), (1.0, "1"), (0.5, "0.5"), (1e21, "1e+21"), (1e-7, "1e-7"),
    ({"b": [1, None], "a": False}, '{"a":false,"b":[1,null]}'), ("é\x7f", '"é\x7f"'), ("a\\b", '"a\\\\b"'),
    ("\u2028\t", '"\\u2028\\t"'), ('"', '"\\""'),
])
def test_go_json(value: object, text: str) -> None:
    assert go_json(value) == text


def test_manager_identifiers() -> None:
    assert manager_identifier("kubectl", "Apply", "apps/v1", "") == '{"manager":"kubectl","operation":"Apply"}'
    assert (manager_identifier("ctl", "Update", "v1", "status")
            == '{"manager":"ctl","operation":"Update","apiVersion":"v1","subresource":"status"}')


ENTRIES = [
    {"manager": "b", "operation": "Update", "apiVersion": "v1", "time": "2024-01-01T00:00:02Z",
     "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:x": {}}}},
    {"manager": "z", "operation": "Update", "apiVersion": "v1", "time": "2024-01-01T00:00:01Z",
     "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:y": {}}}},
    {"manager": "a", "operation": "Apply", "apiVersion": "v1", "time": "2024-01-01T00:00:09Z",
     "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:z": {}}}, "subresource": "status"},
]


def test_encoding_sorts_by_operation_time_manager() -> None:
    encoded = encode_managed_fields(decode_managed_fields(ENTRIES))
    assert [entry["manager"] for entry in encoded] == ["a", "z", "b"]
    assert encoded[0] == ENTRIES[2]
    assert encode_managed_fields(Managed()) is None


def test_time_without_entry_time_is_omitted() -> None:
    managed = Managed({manager_identifier("m", "Update", "v1", ""): VersionedSet(FieldSet.of((F("a"),)), "v1", False)})
    assert encode_managed_fields(managed) == [
        {"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:a": {}}}]


@pytest.mark.parametrize(("entry", "message"), [
    ({"manager": "m", "operation": "Patch", "apiVersion": "v1", "fieldsType": "FieldsV1"},
     "operation must be `Apply` or `Update`"),
    ({"manager": "m", "operation": "Update", "fieldsType": "FieldsV1"}, "apiVersion must not be empty"),
    ({"manager": "m", "operation": "Update", "apiVersion": "v1"}, "missing fieldsType in managed fields entry 0"),
    ({"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV2"},
     'invalid fieldsType "FieldsV2" in managed fields entry 0'),
])
def test_decode_errors(entry: dict[str, str], message: str) -> None:
    with pytest.raises(ManagedFieldsError, match=message):
        decode_managed_fields([entry])


def test_reset_requests() -> None:
    assert is_reset([]) and is_reset([{}]) and not is_reset(None) and not is_reset([{"fieldsV1": {}}])


def test_path_elements_leave_no_cycles_for_the_collector() -> None:
    """An element is freed with its last reference: a sort key that held the element itself
    made a reference cycle per associative-list key of every write, for the collector."""
    import gc

    from fakeapi.machinery.fieldpath import PathElement

    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for n in range(10):
            sorted([PathElement.key({"name": f"c{n}"}), PathElement.value(n), PathElement.field(f"f{n}")],
                   key=lambda element: element.sort_key)
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, PathElement)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
