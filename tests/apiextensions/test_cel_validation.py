"""fakeapi.apiextensions.cel_validation: rules evaluated on custom resources (node by node,
transition rules, ratcheting, blocking schema errors) and compiled when the CRD is written."""

from __future__ import annotations

from fakeapi.apiextensions.cel_validation import RuleValidator, normalized_field_path, rule_errors

SCHEMA = {"type": "object", "properties": {"spec": {
    "type": "object",
    "x-kubernetes-validations": [
        {"rule": "self.min <= self.max", "message": "min must be <= max"},
        {"rule": "self.min >= oldSelf.min", "message": "min may not decrease"},
        {"rule": "!oldSelf.hasValue() || self.max == oldSelf.value().max", "optionalOldSelf": True,
         "message": "max is immutable"},
    ],
    "properties": {
        "min": {"type": "integer"}, "max": {"type": "integer"},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                            "x-kubernetes-validations": [{"rule": "self.port > 0", "reason": "FieldValueForbidden",
                                                          "fieldPath": ".port", "message": "positive"}]}},
    }}}}


def _obj(**spec: object) -> dict[str, object]:
    return {"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"}, "spec": spec}


def test_rules_report_at_their_node_with_their_message_reason_and_field_path() -> None:
    errors = RuleValidator(SCHEMA).validate(_obj(min=3, max=1, ports=[{"name": "a", "port": 0}]), None, [])
    assert errors == [
        ("spec", "FieldValueInvalid", "Invalid value: min must be <= max"),
        ("spec.ports[0].port", "FieldValueForbidden", "Forbidden: positive"),
    ]


def test_transition_rules_run_on_update_only_and_optional_old_self_on_create_too() -> None:
    validator = RuleValidator(SCHEMA)
    assert validator.validate(_obj(min=1, max=2), None, []) == []
    assert validator.validate(_obj(min=0, max=2), _obj(min=1, max=2), []) == [
        ("spec", "FieldValueInvalid", "Invalid value: min may not decrease")]
    assert validator.validate(_obj(min=1, max=3), _obj(min=1, max=2), []) == [
        ("spec", "FieldValueInvalid", "Invalid value: max is immutable")]


def test_unchanged_values_ratchet_and_map_lists_correlate_by_key() -> None:
    validator = RuleValidator(SCHEMA)
    broken = _obj(min=3, max=1)
    assert validator.validate(broken, broken, []) == []
    old = _obj(min=1, max=2, ports=[{"name": "a", "port": 0}])
    new = _obj(min=1, max=2, ports=[{"name": "b", "port": 1}, {"name": "a", "port": 0}])
    assert validator.validate(new, old, []) == []
    changed = _obj(min=1, max=2, ports=[{"name": "a", "port": -1}])
    assert validator.validate(changed, old, []) == [("spec.ports[0].port", "FieldValueForbidden", "Forbidden: positive")]


def test_blocking_schema_errors_stop_the_rules() -> None:
    errors = RuleValidator(SCHEMA).validate(_obj(min=3, max=1), None, [("spec.min", "FieldValueTypeInvalid", "x")])
    assert errors == [("<nil>", "FieldValueInvalid", "Invalid value: null: some validation rules were not checked "
                       "because the object was invalid; correct the existing errors to complete validation")]
    assert RuleValidator(SCHEMA).validate(_obj(min=3, max=1), None, [("spec.min", "FieldValueInvalid", "x")]) != errors


def test_runtime_errors_name_the_rule() -> None:
    errors = RuleValidator(SCHEMA).validate(_obj(min=1), None, [])
    assert errors == [
        ("spec", "FieldValueInvalid", 'Invalid value: "object": no such key: max evaluating rule: min must be <= max')]


def test_message_expression_falls_back_to_the_message() -> None:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}},
              "x-kubernetes-validations": [
                  {"rule": "self.a == 'x'", "messageExpression": "'a is ' + self.a"},
                  {"rule": "self.a == 'y'", "messageExpression": "self.nope", "message": "fallback"},
                  {"rule": "self.a == 'z'", "messageExpression": "' '"}]}}}
    errors = RuleValidator(schema).validate(_obj(a="q"), None, [])
    assert [body for _f, _t, body in errors] == [
        "Invalid value: a is q", "Invalid value: fallback", "Invalid value: failed rule: self.a == 'z'"]


def test_rules_that_do_not_compile_are_crd_errors() -> None:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-validations": [
        {"rule": "self > "}, {"rule": "true", "messageExpression": "nope", "reason": "FieldValueForbidden"}]}}}
    assert rule_errors(schema, "s", []) == [
        ("s.properties[spec].x-kubernetes-validations[0].rule", "FieldValueInvalid",
         'Invalid value: {"Rule":"self \\u003e ","Message":"","MessageExpression":"","Reason":null,"FieldPath":"",'
         '"OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:8: Syntax error: mismatched input \'<EOF>\' '
         "expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, "
         "IDENTIFIER}\n | self > \n | .......^"),
        ("s.properties[spec].x-kubernetes-validations[1].messageExpression", "FieldValueInvalid",
         'Invalid value: {"Rule":"true","Message":"","MessageExpression":"nope","Reason":"FieldValueForbidden",'
         '"FieldPath":"","OptionalOldSelf":null}: messageExpression compilation failed: ERROR: <input>:1:1: undeclared reference to '
         "'nope' (in container '')\n | nope\n | ^"),
    ]
    assert rule_errors(SCHEMA, "s", []) == []
    assert rule_errors(schema, "s", [("s.properties[spec].type", "FieldValueRequired", "Required value")]) == []


def test_ratcheted_errors_become_warnings() -> None:
    warnings: list[str] = []
    broken = _obj(min=3, max=1)
    assert RuleValidator(SCHEMA).validate(broken, broken, [], warnings.append) == []
    assert warnings == ["spec: Invalid value: min must be <= max"]


def test_defaults_are_checked_against_their_rules() -> None:
    node = {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 3"}, {"rule": "self == oldSelf"}]}
    assert RuleValidator(node, resource_root=False).validate_value(5, "x.default") == [
        ("x.default", "FieldValueInvalid", "Invalid value: 5: failed rule: self < 3")]


def test_field_paths_normalize_as_kube_reports_them() -> None:
    schema = {"type": "object", "properties": {
        "o": {"type": "object", "properties": {"x": {"type": "integer"}}},
        "m": {"type": "object", "additionalProperties": {"type": "string"}}}}
    assert [normalized_field_path(p, schema) for p in (".o.x", ".m.k", ".m['a.b']", "['o']", ".nope", "o", ".o.x.y", " ")] == [
        "o.x", "m[k]", "m[a.b]", "o", None, None, None, None]
