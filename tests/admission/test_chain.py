"""The admission chain (``fakeapi.admission``): every plugin module is installed at the first
question, mutating plugins run for their kind in registration order, validating ones for their
kind and then those of every kind (ResourceQuota last, as kube runs it: a write another plugin
refuses is never charged), with ``dry_run`` true only during a dry run's validation. A refusal
is kube's ``admission.NewForbidden``."""

from __future__ import annotations

import pytest
from admission_objects import Json, Objects, new, pod

from fakeapi.admission import (
    Admission,
    mutating,
    plugins_for,
    refusal,
    validating,
    validators_for,
    validators_of_every_kind,
)
from fakeapi.admission.resource_quota import resource_quota
from fakeapi.machinery.status import StatusError

#: A kind no API serves: the plugins registered for it here touch nothing else.
GROUP, KIND = "chain.test.fakeapi.dev", "Probe"
calls: list[tuple[str, bool]] = []


@mutating(GROUP, KIND)
def first(admission: Admission, obj: Json, old: Json | None, subresource: str | None) -> None:
    calls.append(("first", admission.dry_run))
    obj["order"] = [*obj.get("order", ()), "first"]


@mutating(GROUP, KIND)
def second(admission: Admission, obj: Json, old: Json | None, subresource: str | None) -> None:
    calls.append(("second", admission.dry_run))
    obj["order"] = [*obj.get("order", ()), "second"]


@validating(GROUP, KIND)
def check(admission: Admission, obj: Json, old: Json | None, subresource: str | None) -> None:
    calls.append(("check", admission.dry_run))
    if obj.get("nested"):  # a plugin's own write, admitted as not a dry run
        admission.validate(GROUP, KIND, {"metadata": {"name": "inner"}}, None, None)
        calls.append(("check after the nested write", admission.dry_run))
    if obj.get("refuse"):
        raise refusal(GROUP, "probes", obj, "refused")


@pytest.fixture(autouse=True)
def no_calls() -> None:
    calls.clear()


def test_mutating_plugins_run_in_registration_order() -> None:
    probe = {"metadata": {"name": "p"}}
    Admission(lambda *args: None).admit(GROUP, KIND, probe, None, None)
    assert probe["order"] == ["first", "second"]
    assert plugins_for(GROUP, KIND) == [first, second]


def test_the_kinds_validators_come_before_those_of_every_kind() -> None:
    assert validators_for(GROUP, KIND) == [check]
    assert validators_of_every_kind()[-1] is resource_quota


def test_dry_run_holds_during_a_dry_runs_validation_only() -> None:
    admission = Admission(lambda *args: None)
    admission.validate(GROUP, KIND, {"metadata": {"name": "p"}, "nested": True}, None, None, dry_run=True)
    assert calls == [("check", True), ("check", False), ("check after the nested write", True)]
    assert admission.dry_run is False
    with pytest.raises(StatusError):
        admission.validate(GROUP, KIND, {"metadata": {"name": "p"}, "refuse": True}, None, None, dry_run=True)
    assert admission.dry_run is False  # restored after a refusal too
    admission.admit(GROUP, KIND, {"metadata": {"name": "p"}}, None, None)
    assert calls[-2:] == [("first", False), ("second", False)]


@pytest.mark.parametrize(("meta", "message"), [
    ({"name": "web", "generateName": "web-"}, 'probes.chain.test.fakeapi.dev "web" is forbidden: refused'),
    ({"generateName": "web-"}, 'probes.chain.test.fakeapi.dev "web-" is forbidden: refused'),
    ({}, 'probes.chain.test.fakeapi.dev "Unknown" is forbidden: refused'),
])
def test_a_refusal_names_the_object_as_kube_does(meta: Json, message: str) -> None:
    error = refusal(GROUP, "probes", {"metadata": meta}, "refused")
    assert (error.code, error.reason, error.message) == (403, "Forbidden", message)


def test_without_a_lister_nothing_is_listed_and_status_writes_go_nowhere() -> None:
    admission = Admission(lambda *args: None)
    assert admission.list("", "LimitRange", "ns") == []
    admission.update_status("", "ResourceQuota", "ns", "q", lambda quota: quota)


def test_every_plugin_module_mutates_its_kinds(objects: Objects) -> None:
    objects.add(new("v1", "LimitRange", "defaults", spec={"limits": [{"type": "Container",
                                                                      "defaultRequest": {"cpu": "100m"}}]}),
                new("v1", "Node", "node-1", None, metadata={"labels": {"topology.kubernetes.io/zone": "z1"}}),
                new("scheduling.k8s.io/v1", "PriorityClass", "normal", None, value=10, globalDefault=True),
                new("storage.k8s.io/v1", "StorageClass", "fast", None, provisioner="example.com/disk",
                    metadata={"annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}))
    web = pod("web", nodeName="node-1")
    objects.admission.admit("", "Pod", web, None, None)
    assert web["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "100m"}}  # LimitRanger
    assert len(web["spec"]["tolerations"]) == 2  # DefaultTolerationSeconds
    assert web["metadata"]["labels"] == {"topology.kubernetes.io/zone": "z1"}  # PodTopologyLabels
    assert (web["spec"]["priorityClassName"], web["spec"]["priority"]) == ("normal", 10)  # Priority
    data = new("v1", "PersistentVolumeClaim", "data", spec={"resources": {"requests": {"storage": "1Gi"}}})
    objects.admission.admit("", "PersistentVolumeClaim", data, None, None)
    assert (data["spec"]["storageClassName"], data["metadata"]["finalizers"]) == ("fast", ["kubernetes.io/pvc-protection"])
    node = new("v1", "Node", "node-2", None)
    objects.admission.admit("", "Node", node, None, None)
    assert node["spec"]["taints"] == [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]


def test_a_write_another_validator_refuses_is_not_charged(objects: Objects) -> None:
    objects.add(new("v1", "LimitRange", "limits", spec={"limits": [{"type": "Container", "max": {"cpu": "1"}}]}),
                new("v1", "ResourceQuota", "count", status={"hard": {"pods": "5"}, "used": {"pods": "0"}}))
    too_big = pod("web", containers=[{"name": "app", "image": "nginx", "resources": {"limits": {"cpu": "2"}}}])
    with pytest.raises(StatusError) as raised:
        objects.admission.validate("", "Pod", too_big, None, None)
    assert raised.value.message == 'pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 2'
    assert objects.status_writes == []
    small = pod("small", containers=[{"name": "app", "image": "nginx", "resources": {"limits": {"cpu": "1"}}}])
    objects.admission.validate("", "Pod", small, None, None)
    assert [name for _kind, _namespace, name, _written in objects.status_writes] == ["count"]
