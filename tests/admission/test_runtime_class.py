"""RuntimeClass admission alone: tolerations merged as kube's pkg/util/tolerations
MergeTolerations merges them (its test table), the class's overhead and scheduling given to a new
pod, and the refusals (the whole answers are compared with kube's in tests/kasdiff's node corpus)."""

from __future__ import annotations

import pytest
from admission_objects import Objects

from fakeapi.admission.runtime_class import merge_tolerations, runtime_class, runtime_class_overhead
from fakeapi.machinery.status import StatusError

EXISTS_ALL = {"operator": "Exists"}
EXISTS_KEY = {"key": "foo", "operator": "Exists"}
EQUAL_BAR = {"key": "foo", "operator": "Equal", "value": "bar"}
EQUAL_BAR_NO_SCHEDULE = {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}
NO_EXECUTE_60 = {"key": "foo", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
NO_EXECUTE_30 = {"key": "foo", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}


@pytest.mark.parametrize(("first", "second", "merged"), [
    ([], [], []),
    ([EQUAL_BAR], [EQUAL_BAR], [EQUAL_BAR]),  # equal: the first kept
    ([EQUAL_BAR_NO_SCHEDULE], [EQUAL_BAR], [EQUAL_BAR]),  # no effect covers every effect
    ([EQUAL_BAR, EQUAL_BAR_NO_SCHEDULE], [EXISTS_KEY], [EXISTS_KEY]),  # Exists covers every value
    ([EXISTS_KEY], [EXISTS_ALL], [EXISTS_ALL]),  # an empty key with Exists covers every key
    ([NO_EXECUTE_30], [NO_EXECUTE_60], [NO_EXECUTE_60]),  # a longer NoExecute grace covers a shorter one
    ([NO_EXECUTE_60], [NO_EXECUTE_30], [NO_EXECUTE_60]),
    # An empty operator covers Equal, not the other way round (isSuperset asks the covered one for Equal).
    ([{"key": "foo", "value": "bar"}], [EQUAL_BAR], [{"key": "foo", "value": "bar"}]),
    ([EQUAL_BAR], [{"key": "foo", "value": "bar"}], [{"key": "foo", "value": "bar"}]),
    ([EQUAL_BAR], [{"key": "other", "operator": "Exists"}], [EQUAL_BAR, {"key": "other", "operator": "Exists"}]),
])
def test_tolerations_merge_as_kube_merges_them(first: list, second: list, merged: list) -> None:
    assert merge_tolerations(first, second) == merged


def _pod(**spec: object) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "app", "image": "nginx"}], **spec}}


def _class(name: str, **fields: object) -> dict:
    return {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": name}, "handler": "h",
            **fields}


def _admit(objects: Objects, pod: dict) -> dict:
    runtime_class(objects.admission, pod, None, None)
    runtime_class_overhead(objects.admission, pod, None, None)
    return pod


def test_a_pod_gets_its_class_overhead_and_scheduling(objects: Objects) -> None:
    objects.add(_class("sandboxed", overhead={"podFixed": {"cpu": "250m"}},
                       scheduling={"nodeSelector": {"sandbox": "yes"}, "tolerations": [EXISTS_KEY]}))
    pod = _admit(objects, _pod(runtimeClassName="sandboxed", nodeSelector={"zone": "a"}, tolerations=[EQUAL_BAR]))
    assert pod["spec"]["overhead"] == {"cpu": "250m"}
    assert pod["spec"]["nodeSelector"] == {"zone": "a", "sandbox": "yes"}
    assert pod["spec"]["tolerations"] == [EXISTS_KEY]


def test_the_same_overhead_written_otherwise_is_admitted(objects: Objects) -> None:
    objects.add(_class("kata", overhead={"podFixed": {"cpu": "100m"}}))
    assert _admit(objects, _pod(runtimeClassName="kata", overhead={"cpu": "0.1"}))["spec"]["overhead"] == {"cpu": "100m"}


@pytest.mark.parametrize(("spec", "message"), [
    ({"runtimeClassName": "absent"}, 'pod rejected: RuntimeClass "absent" not found'),
    ({"overhead": {"cpu": "1"}}, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"),
    ({"runtimeClassName": "kata", "overhead": {"cpu": "1"}},
     "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"),
    ({"runtimeClassName": "zoned", "nodeSelector": {"zone": "a"}},
     "conflict: runtimeClass.scheduling.nodeSelector[zone] = b; pod.spec.nodeSelector[zone] = a"),
])
def test_refusals(objects: Objects, spec: dict, message: str) -> None:
    objects.add(_class("kata", overhead={"podFixed": {"cpu": "100m"}}),
                _class("zoned", scheduling={"nodeSelector": {"zone": "b"}}))
    with pytest.raises(StatusError) as refused:
        _admit(objects, _pod(**spec))
    assert refused.value.code == 403
    assert refused.value.message == f'pods "p" is forbidden: {message}'
