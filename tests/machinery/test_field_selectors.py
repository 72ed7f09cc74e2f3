"""Field selectors against apimachinery's ``fields.ParseSelector``, the field label conversions kube
registers per kind, and each registry's ``GetAttrs``.

Parse errors are what ``fields.ParseSelector`` (apimachinery v0.32.13) returns; conversion errors
are those of ``pkg/apis/*/v1/conversion.go`` and ``runtime.DefaultMetaV1FieldSelectorConversion``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakeapi.apis.catalogue import default_catalogue
from fakeapi.machinery.selectors import (
    FieldRequirement,
    FieldSelector,
    parse_field_selector,
    selectable_fields,
    validate_field_selector,
)
from fakeapi.machinery.status import StatusError


@dataclass(frozen=True)
class Kind:
    group: str
    kind: str
    namespaced: bool = True


POD, NODE, CONFIGMAP = Kind("", "Pod"), Kind("", "Node", namespaced=False), Kind("", "ConfigMap")
EVENT, NEW_EVENT, JOB = Kind("", "Event"), Kind("events.k8s.io", "Event"), Kind("batch", "Job")


@pytest.mark.parametrize(("selector", "terms"), [
    ("", ()),
    (",", ()),
    ("a=b", (("a", "b", True),)),
    ("a==b", (("a", "b", True),)),
    ("a!=b", (("a", "b", False),)),
    ("a=", (("a", "", True),)),
    ("=", ()),  # an empty term selects everything
    ("metadata.name = x", (("metadata.name ", " x", True),)),  # nothing is trimmed
    ("a=b\\,c", (("a", "b,c", True),)),
    ("x!=\\\\y", (("x", "\\y", False),)),
    ("b=1,a=2", (("a", "2", True), ("b", "1", True))),  # terms are kept (and checked) in sorted order
])
def test_parse(selector: str, terms: tuple[tuple[str, str, bool], ...]) -> None:
    assert FieldSelector.parse(selector) == FieldSelector(tuple(FieldRequirement(*t) for t in terms))


@pytest.mark.parametrize(("selector", "message"), [
    ("a", "invalid selector: 'a'; can't understand 'a'"),
    ("a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"),
    ("a=b,c\\,d", "invalid selector: 'a=b,c\\,d'; can't understand 'c\\,d'"),
    ("a=b=c", "invalid field selector: unescaped character in value: 61"),
    ("a\\=b=c", "invalid field selector: unescaped character in value: 61"),
    ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
    ("a=\\x", "invalid field selector: invalid escape sequence: \\x"),
])
def test_parse_errors_are_upstreams(selector: str, message: str) -> None:
    with pytest.raises(StatusError) as err:
        FieldSelector.parse(selector)
    assert (err.value.code, err.value.reason, err.value.message) == (400, "BadRequest", message)


def escape(value: str) -> str:
    """``fields.EscapeValue``."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


@given(st.dictionaries(st.sampled_from(["a", "b.c", "d"]), st.text(max_size=8), min_size=1))
def test_escaped_values_round_trip(values: dict[str, str]) -> None:
    selector = FieldSelector.parse(",".join(f"{field}={escape(value)}" for field, value in values.items()))
    assert selector.matches(values)
    assert {r.field: r.value for r in selector.requirements} == values


def test_matching_compares_missing_fields_as_empty() -> None:
    fields = {"metadata.name": "x", "spec.nodeName": ""}
    assert FieldSelector.parse("metadata.name=x,spec.nodeName=").matches(fields)
    assert FieldSelector.parse("status.podIPs=").matches(fields)
    assert FieldSelector.parse("metadata.name!=y,status.phase!=Running").matches(fields)
    assert not FieldSelector.parse("metadata.name=x,metadata.namespace=default").matches(fields)


@pytest.mark.parametrize(("kind", "selector", "fields"), [
    (POD, "spec.nodeName=n1,status.phase=Running", ("spec.nodeName", "status.phase")),
    (POD, "spec.host=n1", ("spec.nodeName",)),  # what pre-1.0 clients sent
    (NODE, "spec.unschedulable=true", ("spec.unschedulable",)),
    (CONFIGMAP, "metadata.name=a,metadata.namespace=b", ("metadata.name", "metadata.namespace")),
    (NEW_EVENT, "regarding.name=web,reportingController=kubelet",
     ("involvedObject.name", "reportingComponent")),
    (JOB, "status.successful=1", ("status.successful",)),
])
def test_supported_labels_convert(kind: Kind, selector: str, fields: tuple[str, ...]) -> None:
    converted = parse_field_selector(kind, selector)
    assert tuple(r.field for r in converted.requirements) == tuple(sorted(fields))


@pytest.mark.parametrize(("kind", "selector", "message"), [
    (POD, "spec.containers=x", "field label not supported: spec.containers"),
    (NODE, "metadata.namespace=x", "field label not supported: metadata.namespace"),
    (EVENT, "regarding.name=x", "field label not supported: regarding.name"),
    (NEW_EVENT, "involvedObject.name=x", "field label not supported: involvedObject.name"),
    (CONFIGMAP, "data.x=y", '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    (JOB, "status.succeeded=1", 'field label "status.succeeded" not supported for batchv1.Job'),
    (Kind("resource.k8s.io", "ResourceSlice", namespaced=False), "spec.pool=x",
     "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.pool"),
    (POD, "b.unknown=1,a.unknown=2", "field label not supported: a.unknown"),  # the first in sorted order
])
def test_unsupported_labels(kind: Kind, selector: str, message: str) -> None:
    with pytest.raises(StatusError) as err:
        validate_field_selector(kind, FieldSelector.parse(selector))
    assert (err.value.code, err.value.message) == (400, message)


def test_pod_fields() -> None:
    pod = {
        "metadata": {"name": "web-1", "namespace": "default"},
        "spec": {"nodeName": "n1", "restartPolicy": "Always", "schedulerName": "default-scheduler",
                 "serviceAccountName": "default"},
        "status": {"phase": "Running", "podIPs": [{"ip": "10.0.0.7"}, {"ip": "fd00::7"}], "nominatedNodeName": ""},
    }
    assert selectable_fields(POD, pod) == {
        "metadata.name": "web-1", "metadata.namespace": "default", "spec.nodeName": "n1",
        "spec.restartPolicy": "Always", "spec.schedulerName": "default-scheduler",
        "spec.serviceAccountName": "default", "spec.hostNetwork": "false", "status.phase": "Running",
        "status.podIP": "10.0.0.7", "status.nominatedNodeName": "",
    }
    pod["spec"]["hostNetwork"] = True  # type: ignore[index]
    pod["status"]["podIP"] = "10.0.0.8"  # type: ignore[index]
    fields = selectable_fields(POD, pod)
    assert (fields["spec.hostNetwork"], fields["status.podIP"]) == ("true", "10.0.0.8")


def test_events_of_both_groups_offer_the_core_events_fields() -> None:
    core = {"metadata": {"name": "e", "namespace": "ns"}, "involvedObject": {"kind": "Pod", "name": "web"},
            "reason": "Started", "type": "Normal", "reportingComponent": "kubelet", "source": {}}
    new = {"metadata": {"name": "e", "namespace": "ns"}, "regarding": {"kind": "Pod", "name": "web"},
           "reason": "Started", "type": "Normal", "reportingController": "kubelet"}
    assert selectable_fields(EVENT, core) == selectable_fields(NEW_EVENT, new)
    fields = selectable_fields(NEW_EVENT, new)
    assert fields["involvedObject.name"] == "web" and fields["source"] == "kubelet"  # source falls back
    assert parse_field_selector(NEW_EVENT, "regarding.name=web,source=kubelet").matches(fields)
    core["source"] = {"component": "scheduler"}
    assert selectable_fields(EVENT, core)["source"] == "scheduler"


def test_integer_and_boolean_fields_read_as_go_prints_them() -> None:
    assert selectable_fields(JOB, {"metadata": {"name": "j"}, "status": {}})["status.successful"] == "0"
    assert selectable_fields(JOB, {"metadata": {"name": "j"}, "status": {"succeeded": 2}})["status.successful"] == "2"
    assert selectable_fields(NODE, {"metadata": {"name": "n"}}) == {"metadata.name": "n", "spec.unschedulable": "false"}


def test_catalogue_types_are_selectable_kinds() -> None:
    pods = default_catalogue().lookup("", "v1", "pods")
    assert pods is not None
    assert parse_field_selector(pods, "spec.nodeName=n1").matches(
        selectable_fields(pods, {"metadata": {"name": "p"}, "spec": {"nodeName": "n1"}}))
