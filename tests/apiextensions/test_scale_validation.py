"""fakeapi.apiextensions.scale_validation: the scale subresource paths of a custom resource."""

from __future__ import annotations

from fakeapi.apiextensions.crd import ScaleSubresource
from fakeapi.apiextensions.scale_validation import scale_spec_errors, scale_status_errors

SCALE = ScaleSubresource(".spec.replicas", ".status.replicas", ".status.selector")


def test_replicas_must_be_int32_integers_where_present() -> None:
    assert scale_spec_errors({"spec": {}}, SCALE) == []
    assert scale_spec_errors({"spec": {"replicas": 3}}, SCALE) == []
    assert scale_spec_errors({"spec": {"replicas": -1}}, SCALE) == [
        (".spec.replicas", "FieldValueInvalid", "Invalid value: -1: should be a non-negative integer")]
    assert scale_spec_errors({"spec": {"replicas": 2**31}}, SCALE) == [
        (".spec.replicas", "FieldValueInvalid", "Invalid value: 2147483648: should be less than or equal to 2147483647")]
    assert scale_spec_errors({"spec": {"replicas": "one"}}, SCALE) == [
        (".spec.replicas", "FieldValueInvalid",
         "Invalid value: 0: .spec.replicas accessor error: one is of the type string, expected int64")]
    assert scale_spec_errors({"spec": "flat"}, SCALE) == [
        (".spec.replicas", "FieldValueInvalid",
         "Invalid value: 0: .spec.replicas accessor error: flat is of the type string, expected map[string]interface{}")]
    assert scale_spec_errors({"spec": {"replicas": -1}}, None) == []


def test_status_replicas_and_the_selector() -> None:
    assert scale_status_errors({"status": {"replicas": 1, "selector": "a=b"}}, SCALE) == []
    assert scale_status_errors({"status": {"replicas": 1.5, "selector": 3}}, SCALE) == [
        (".status.replicas", "FieldValueInvalid",
         "Invalid value: 0: .status.replicas accessor error: 1.5 is of the type float64, expected int64"),
        (".status.selector", "FieldValueInvalid",
         'Invalid value: "": .status.selector accessor error: 3 is of the type int64, expected string')]
