"""CRD defaulting, validation and status (``fakeapi.apiextensions``: ``crd_defaults``,
``crd_strategy``, ``crd_validation``, ``crd_names``; the served versions of ``crd``).

Messages are kube's: those marked with a source are quoted from kubernetes v1.32 tests
(``apiext`` = staging/src/k8s.io/apiextensions-apiserver), the rest were produced by
``tests/crddiff`` (kube's own code), which ``test_crd_differential.py`` keeps checking.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.apiextensions.crd import custom_resource_types
from fakeapi.apiextensions.crd_defaults import default_crd
from fakeapi.apiextensions.crd_names import accepted_names_of_group, crd_status
from fakeapi.apiextensions.crd_strategy import prepare_crd_create, prepare_crd_update
from fakeapi.apiextensions.crd_validation import crd_errors, validate_crd
from fakeapi.machinery.status import StatusError

NOW = "2026-01-01T00:00:00Z"


def make_crd(schema: Any = None, **spec: Any) -> dict[str, Any]:
    body = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": schema or {"type": "object"}}}]},
    }
    body["spec"].update(spec)
    default_crd(body)
    return body


def messages(body: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    return [f"{field}: {message}" for field, _, message in crd_errors(body, old)]


def test_defaults() -> None:
    """apiext pkg/apis/apiextensions/v1/defaults.go."""
    body = make_crd()
    assert body["spec"]["names"] == {"plural": "widgets", "kind": "Widget", "singular": "widget", "listKind": "WidgetList"}
    assert body["spec"]["conversion"] == {"strategy": "None"}
    assert body["status"] == {"storedVersions": ["v1"]}
    assert messages(body) == []


@pytest.mark.parametrize(("change", "expected"), [
    ({"metadata": {"name": "widget.example.com"}},
     ['metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group']),
    ({"spec": {"group": "example"}, "metadata": {"name": "widgets.example"}},
     ['spec.group: Invalid value: "example": should be a domain with at least one dot']),
    ({"spec": {"scope": "Global"}},
     ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']),
    ({"spec": {"names": {"plural": "widgets", "kind": "Widget", "singular": "widget", "listKind": "Widget"}}},
     ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same']),
    # the schema of a single version is validated as the spec's (v1 to internal conversion)
    ({"spec": {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}}}}}}]}},
     ["spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"]),
    ({"spec": {"versions": [{"name": "v1", "served": True, "storage": True}]}},
     ["spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"]),
    ({"spec": {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": {"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}}}}}}]}},
     ['spec.validation.openAPIV3Schema.properties[spec].properties[n].default: Invalid value: "string": '
      ' in body must be of type integer: "string"']),
    ({"spec": {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}},
                             "subresources": {"scale": {"specReplicasPath": "spec.replicas", "statusReplicasPath": ".status.replicas"}}}]}},
     ['spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .']),
    ({"spec": {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}},
                             "additionalPrinterColumns": [{"name": "Age", "type": "time", "jsonPath": ".metadata.creationTimestamp"}]}]}},
     ['spec.additionalPrinterColumns[0].type: Invalid value: "time": must be one of boolean,date,integer,number,string']),
    ({"spec": {"group": "x.k8s.io"}, "metadata": {"name": "widgets.x.k8s.io"}},
     ['metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation '
      '"api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111']),
])
def test_validation_messages(change: dict[str, Any], expected: list[str]) -> None:
    body = make_crd()
    for section, values in change.items():
        body[section].update(values)
    assert messages(body) == expected


def test_storage_version_count() -> None:
    body = make_crd(versions=[{"name": "v1", "served": True, "storage": False, "schema": {"openAPIV3Schema": {"type": "object"}}}])
    prepare_crd_create(body)
    assert messages(body) == [
        'spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion'
        '{Name:"v1", Served:true, Storage:false, Deprecated:false, DeprecationWarning:(*string)(nil), '
        'Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), '
        'AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), '
        'SelectableFields:[]apiextensions.SelectableField(nil)}}: must have exactly one version marked as storage version',
        "status.storedVersions: Invalid value: []string(nil): must have at least one stored version",
    ]


def test_validate_crd_raises_422() -> None:
    body = make_crd(scope="")
    with pytest.raises(StatusError) as raised:
        validate_crd(body)
    assert raised.value.code == 422
    assert raised.value.message == ('CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: '
                                    "spec.scope: Required value")


def established(body: dict[str, Any]) -> dict[str, Any]:
    prepare_crd_create(body)
    body["status"] = crd_status(body, now=NOW)
    return body


def test_update_keeps_group_plural_and_established_scope() -> None:
    """apiext validation.go validateCustomResourceDefinitionSpecUpdate ("field is immutable")."""
    old = established(make_crd())
    new = copy.deepcopy(old)
    new["spec"].update(group="example.org", scope="Cluster")
    new["metadata"]["name"] = "widgets.example.org"
    prepare_crd_update(new, old)
    assert messages(new, old) == [
        'spec.scope: Invalid value: "Cluster": field is immutable',
        'spec.group: Invalid value: "example.org": field is immutable',
    ]


def test_update_stored_versions() -> None:
    """storedVersions accumulate the storage version; dropping a stored version is invalid."""
    old = established(make_crd())
    new = copy.deepcopy(old)
    new["spec"]["versions"] = [{"name": "v2", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}]
    prepare_crd_update(new, old)
    assert new["status"]["storedVersions"] == ["v1", "v2"]
    assert new["metadata"]["generation"] == 2
    assert messages(new, old) == ['status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions']


def test_status_of_a_new_crd() -> None:
    """The naming and establishing controllers' conditions (naming_controller.go,
    establishing_controller.go), at once."""
    body = make_crd(names={"plural": "widgets", "kind": "Widget", "shortNames": ["wd"], "categories": ["all"]})
    default_crd(body)
    prepare_crd_create(body)
    assert crd_status(body, now=NOW) == {
        "storedVersions": ["v1"],
        "acceptedNames": {"plural": "widgets", "singular": "widget", "shortNames": ["wd"], "kind": "Widget",
                          "listKind": "WidgetList", "categories": ["all"]},
        "conditions": [
            {"type": "NamesAccepted", "status": "True", "lastTransitionTime": NOW, "reason": "NoConflicts",
             "message": "no conflicts found"},
            {"type": "Established", "status": "True", "lastTransitionTime": NOW, "reason": "InitialNamesAccepted",
             "message": "the initial names have been accepted"},
        ],
    }


def test_name_conflicts_with_another_crd_of_the_group() -> None:
    other = established(make_crd())
    other["metadata"]["name"] = "other.example.com"
    body = make_crd(names={"plural": "gadgets", "kind": "Gadget", "shortNames": ["widget"]})
    body["metadata"]["name"] = "gadgets.example.com"
    prepare_crd_create(body)
    used_resources, used_kinds = accepted_names_of_group([other, body], "example.com", excluding="gadgets.example.com")
    status = crd_status(body, used_resources, used_kinds, now=NOW)
    assert status["conditions"] == [
        {"type": "NamesAccepted", "status": "False", "lastTransitionTime": NOW, "reason": "ShortNamesConflict",
         "message": '"widget" is already in use'},
        {"type": "Established", "status": "False", "lastTransitionTime": NOW, "reason": "NotAccepted",
         "message": "not all names are accepted"},
    ]
    assert status["acceptedNames"] == {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"}


def test_condition_transition_time_kept_while_status_unchanged() -> None:
    body = established(make_crd())
    assert crd_status(body, now="2030-01-01T00:00:00Z")["conditions"] == body["status"]["conditions"]


def test_custom_resource_types() -> None:
    body = established(make_crd(
        schema={"type": "object", "properties": {"spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}},
        versions=[{"name": "v1", "served": True, "storage": True,
                   "schema": {"openAPIV3Schema": {"type": "object"}},
                   "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                            "statusReplicasPath": ".status.replicas"}},
                   "additionalPrinterColumns": [{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]},
                  {"name": "v1beta1", "served": False, "storage": False, "schema": {"openAPIV3Schema": {"type": "object"}}}]))
    served, unserved = custom_resource_types(body)
    assert (served.group_version, served.kind, served.list_kind, served.plural, served.singular, served.namespaced) == (
        "example.com/v1", "Widget", "WidgetList", "widgets", "widget", True)
    assert served.subresource_names == ("status", "scale")
    assert served.scale is not None and served.scale.spec_replicas_path == ".spec.replicas"
    assert served.printer_columns[0]["name"] == "Age"
    assert served.structural.admit({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "x": 1}) == []
    assert not unserved.served and unserved.subresource_names == ()


def test_resource_type_for_the_catalogue() -> None:
    body = established(make_crd(versions=[{"name": "v1", "served": True, "storage": True,
                                           "schema": {"openAPIV3Schema": {"type": "object"}},
                                           "subresources": {"status": {}}}]))
    resource_type = custom_resource_types(body)[0].resource_type()
    assert resource_type.group_version == "example.com/v1"
    # kube's apiextensions DiscoveryController order (GET /apis/<group>/<version> on kube-apiserver v1.35.4)
    assert resource_type.verbs == ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")
    assert resource_type.storage_prefix == "/registry/example.com/widgets/"
    assert dict(resource_type.subresources)["status"].kind == "Widget"
