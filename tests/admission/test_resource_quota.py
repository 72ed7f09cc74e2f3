"""ResourceQuota as kube's ``apiserver/pkg/admission/plugin/resourcequota`` with the evaluators
of ``pkg/quota/v1/evaluator/core``: a namespaced write is charged to every quota of its
namespace whose ``status.hard`` names a resource it uses and whose scopes match it; the new
``status.used`` is written (as the quota's status, against the version read) before the object
is stored, except on a dry run; a write that would take a quota past ``hard`` is refused (403)
with kube's messages, and so is one a quota covers while its usage is unknown. An update is
charged what it adds, never credited what it frees."""

from __future__ import annotations

from typing import Any

import pytest
from admission_objects import Json, Objects, new, pod

from fakeapi.admission.resource_quota import resource_quota
from fakeapi.machinery.status import StatusError


def quota(name: str, hard: dict[str, str], used: dict[str, str] | None = None, namespace: str = "ns",
          **spec: Any) -> Json:
    """A quota whose status the quota controller has filled (``used`` None: not yet)."""
    status: Json = {"hard": hard, **({"used": used} if used is not None else {})}
    return new("v1", "ResourceQuota", name, namespace, metadata={"resourceVersion": "7"},
               spec={"hard": hard, **spec}, status=status)


def container(requests: Json | None = None, limits: Json | None = None, name: str = "app") -> Json:
    return {"name": name, "image": "nginx", "resources": {"requests": requests or {}, "limits": limits or {}}}


def admit(objects: Objects, obj: Json, old: Json | None = None, subresource: str | None = None) -> None:
    resource_quota(objects.admission, obj, old, subresource)


def refused(objects: Objects, obj: Json, old: Json | None = None) -> str:
    """The 403's message; no quota was written."""
    writes = len(objects.status_writes)
    with pytest.raises(StatusError) as raised:
        admit(objects, obj, old)
    assert raised.value.code == 403
    assert len(objects.status_writes) == writes
    return raised.value.message


def used(objects: Objects) -> dict[str, dict[str, str]]:
    """Each written quota's new ``status.used``, by name."""
    return {name: written["status"]["used"] for _kind, _namespace, name, written in objects.status_writes}


# ----------------------------------------------------------------- charging and refusing


def test_a_pod_is_charged_to_the_quota_and_written_against_the_version_read(objects: Objects) -> None:
    objects.add(quota("compute", {"pods": "5", "requests.cpu": "2", "limits.memory": "1Gi", "count/pods": "5"},
                      {"pods": "1", "requests.cpu": "500m", "limits.memory": "0", "count/pods": "1"}))
    admit(objects, pod("web", containers=[container({"cpu": "250m"}, {"memory": "256Mi"}),
                                          container({"cpu": "250m"}, {"memory": "256Mi"}, name="side")]))
    assert used(objects) == {"compute": {"pods": "2", "requests.cpu": "1", "limits.memory": "512Mi",
                                         "count/pods": "2"}}
    kind, namespace, name, written = objects.status_writes[0]
    assert (kind, namespace, name, written["metadata"]["resourceVersion"]) == ("ResourceQuota", "ns", "compute", "7")


def test_every_covering_quota_is_charged_and_others_are_not(objects: Objects) -> None:
    objects.add(quota("count", {"pods": "10"}, {"pods": "3"}),
                quota("cpu", {"requests.cpu": "4"}, {"requests.cpu": "1"}),
                quota("services", {"services": "2"}, {"services": "0"}),
                quota("elsewhere", {"pods": "1"}, {"pods": "1"}, namespace="other"))
    admit(objects, pod("web", containers=[container({"cpu": "1"}, {"cpu": "1"})]))
    assert used(objects) == {"count": {"pods": "4"}, "cpu": {"requests.cpu": "2"}}


def test_a_write_past_the_quota_is_refused_naming_the_exceeded_resources(objects: Objects) -> None:
    objects.add(quota("compute", {"pods": "5", "requests.cpu": "1", "requests.memory": "1Gi"},
                      {"pods": "1", "requests.cpu": "600m", "requests.memory": "900Mi"}))
    message = refused(objects, pod("web", containers=[container({"cpu": "500m", "memory": "200Mi"})]))
    assert message == ('pods "web" is forbidden: exceeded quota: compute, requested: '
                       'requests.cpu=500m,requests.memory=200Mi, used: requests.cpu=600m,requests.memory=900Mi, '
                       'limited: requests.cpu=1,requests.memory=1Gi')


def test_up_to_the_quota_exactly_is_allowed(objects: Objects) -> None:
    objects.add(quota("compute", {"requests.cpu": "1"}, {"requests.cpu": "600m"}))
    admit(objects, pod("web", containers=[container({"cpu": "400m"})]))
    assert used(objects) == {"compute": {"requests.cpu": "1"}}


def test_a_dry_run_is_checked_but_charges_nothing(objects: Objects) -> None:
    objects.add(quota("count", {"pods": "1"}, {"pods": "0"}))
    objects.admission.dry_run = True
    admit(objects, pod("web"))
    assert objects.status_writes == []
    objects.add(quota("full", {"pods": "1"}, {"pods": "1"}))
    assert refused(objects, pod("web")).startswith('pods "web" is forbidden: exceeded quota: full')


def test_a_quota_whose_usage_is_unknown_refuses_what_it_covers(objects: Objects) -> None:
    objects.add(quota("new", {"pods": "5", "requests.cpu": "1", "services": "1"}, {"pods": "0"}))
    assert refused(objects, pod("web", containers=[container({"cpu": "1"})])) == \
        'pods "web" is forbidden: status unknown for quota: new, resources: pods,requests.cpu'
    admit(objects, new("v1", "ConfigMap", "settings"))  # not covered: no check
    assert objects.status_writes == []


def test_a_quota_of_cpu_or_memory_needs_every_container_to_say_it(objects: Objects) -> None:
    objects.add(quota("compute", {"requests.cpu": "4", "limits.memory": "4Gi", "pods": "9"},
                      {"requests.cpu": "0", "limits.memory": "0", "pods": "0"}))
    message = refused(objects, pod("web", containers=[container({"cpu": "1"}, {"memory": "1Gi"}),
                                                      container(name="bare")],
                                   initContainers=[container({"cpu": "1"}, name="init")]))
    assert message == 'pods "web" is forbidden: failed quota: compute: must specify limits.memory for: bare,init; ' \
                      'requests.cpu for: bare'


def test_pod_level_resources_satisfy_the_constraint(objects: Objects) -> None:
    objects.add(quota("compute", {"requests.cpu": "4"}, {"requests.cpu": "0"}))
    admit(objects, pod("web", resources={"requests": {"cpu": "1"}}))
    assert used(objects) == {"compute": {"requests.cpu": "1"}}


def test_negative_usage_is_refused(objects: Objects) -> None:
    objects.add(quota("compute", {"requests.cpu": "4"}, {"requests.cpu": "0"}))
    assert refused(objects, pod("web", containers=[container({"cpu": "-1"})])) == \
        'pods "web" is forbidden: quota usage is negative for resource(s): cpu,requests.cpu'


def test_a_finished_pod_counts_only_as_an_object(objects: Objects) -> None:
    objects.add(quota("compute", {"pods": "5", "count/pods": "5", "requests.cpu": "4"},
                      {"pods": "0", "count/pods": "0", "requests.cpu": "0"}))
    done = pod("job", containers=[container({"cpu": "1"})])
    done["status"] = {"phase": "Succeeded"}
    admit(objects, done)
    assert used(objects) == {"compute": {"pods": "0", "count/pods": "1", "requests.cpu": "0"}}


def test_an_extended_resource_is_charged_as_its_request(objects: Objects) -> None:
    objects.add(quota("gpus", {"requests.example.com/gpu": "1"}, {"requests.example.com/gpu": "0"}))
    gpus = {"example.com/gpu": "2"}
    assert refused(objects, pod("train", containers=[container(gpus, gpus)])) == (
        'pods "train" is forbidden: exceeded quota: gpus, requested: requests.example.com/gpu=2, '
        'used: requests.example.com/gpu=0, limited: requests.example.com/gpu=1')


def test_hugepages_are_charged_by_name_and_as_requests(objects: Objects) -> None:
    objects.add(quota("pages", {"hugepages-2Mi": "1Gi", "requests.hugepages-2Mi": "1Gi"},
                      {"hugepages-2Mi": "0", "requests.hugepages-2Mi": "0"}))
    pages = {"hugepages-2Mi": "100Mi", "memory": "100Mi"}
    admit(objects, pod("web", containers=[container(pages, pages)]))
    assert used(objects) == {"pages": {"hugepages-2Mi": "100Mi", "requests.hugepages-2Mi": "100Mi"}}


# ----------------------------------------------------------------- updates


def test_a_pod_update_is_charged_only_when_it_starts_or_stops_terminating(objects: Objects) -> None:
    objects.add(quota("terminating", {"pods": "5"}, {"pods": "0"}, scopes=["Terminating"]),
                quota("any", {"pods": "5"}, {"pods": "1"}))
    stored = pod("web", metadata={"resourceVersion": "3"})
    admit(objects, pod("web", metadata={"resourceVersion": "3"}, activeDeadlineSeconds=0), old=stored)
    assert used(objects) == {"terminating": {"pods": "1"}}  # "any" covered it before: nothing new
    objects.status_writes.clear()
    admit(objects, pod("web", metadata={"resourceVersion": "3"}, schedulerName="other"), old=stored)
    assert objects.status_writes == []


def test_an_update_is_charged_what_it_adds_and_not_credited(objects: Objects) -> None:
    objects.add(quota("services", {"services": "5", "services.nodeports": "3", "services.loadbalancers": "1"},
                      {"services": "1", "services.nodeports": "0", "services.loadbalancers": "0"}))
    stored = service("web", "ClusterIP", 2, resourceVersion="4")
    admit(objects, service("web", "NodePort", 2, resourceVersion="4"), old=stored)
    assert used(objects) == {"services": {"services": "1", "services.nodeports": "2", "services.loadbalancers": "0"}}
    objects.status_writes.clear()
    admit(objects, service("web", "ClusterIP", 2, resourceVersion="5"),
          old=service("web", "NodePort", 2, resourceVersion="5"))
    assert objects.status_writes == []


def test_a_claim_is_charged_its_storage_also_per_class_and_a_resize_the_increase(objects: Objects) -> None:
    gold = "gold.storageclass.storage.k8s.io/"
    objects.add(quota("storage", {"persistentvolumeclaims": "5", "requests.storage": "20Gi",
                                  gold + "requests.storage": "10Gi", gold + "persistentvolumeclaims": "1"},
                      {"persistentvolumeclaims": "0", "requests.storage": "0", gold + "requests.storage": "0",
                       gold + "persistentvolumeclaims": "0"}))
    admit(objects, claim("data", "4Gi", "gold"))
    assert used(objects) == {"storage": {"persistentvolumeclaims": "1", "requests.storage": "4Gi",
                                         gold + "requests.storage": "4Gi", gold + "persistentvolumeclaims": "1"}}
    objects.status_writes.clear()
    admit(objects, claim("data", "6Gi", "gold", resourceVersion="8"), old=claim("data", "4Gi", "gold", resourceVersion="8"))
    assert used(objects) == {"storage": {"persistentvolumeclaims": "1", "requests.storage": "6Gi",
                                         gold + "requests.storage": "6Gi", gold + "persistentvolumeclaims": "1"}}
    assert refused(objects, claim("more", "1Gi", "gold")) == (
        'persistentvolumeclaims "more" is forbidden: exceeded quota: storage, requested: '
        'gold.storageclass.storage.k8s.io/persistentvolumeclaims=1, used: '
        'gold.storageclass.storage.k8s.io/persistentvolumeclaims=1, limited: '
        'gold.storageclass.storage.k8s.io/persistentvolumeclaims=1')


def service(name: str, service_type: str, ports: int, **meta: str) -> Json:
    return new("v1", "Service", name, metadata=meta, spec={"type": service_type, "ports": [
        {"port": 80 + i, **({"nodePort": 30080 + i} if service_type != "ClusterIP" else {})} for i in range(ports)]})


def claim(name: str, storage: str, storage_class: str, **meta: str) -> Json:
    return new("v1", "PersistentVolumeClaim", name, metadata=meta, spec={
        "storageClassName": storage_class, "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": storage}}})


def test_services_count_their_node_ports_and_load_balancers(objects: Objects) -> None:
    objects.add(quota("services", {"services": "5", "services.nodeports": "3", "services.loadbalancers": "2"},
                      {"services": "0", "services.nodeports": "0", "services.loadbalancers": "0"}))
    admit(objects, service("lb", "LoadBalancer", 2))
    assert used(objects) == {"services": {"services": "1", "services.nodeports": "2", "services.loadbalancers": "1"}}
    no_node_ports = service("lb", "LoadBalancer", 2)
    no_node_ports["spec"]["allocateLoadBalancerNodePorts"] = False
    del no_node_ports["spec"]["ports"][1]["nodePort"]
    objects.status_writes.clear()
    admit(objects, no_node_ports)  # only the port given a node port counts
    assert used(objects) == {"services": {"services": "2", "services.nodeports": "3", "services.loadbalancers": "2"}}


# ----------------------------------------------------------------- object counts


@pytest.mark.parametrize(("obj", "names"), [
    (new("v1", "ConfigMap", "settings"), ["count/configmaps", "configmaps"]),
    (new("v1", "Secret", "token"), ["count/secrets", "secrets"]),
    (new("apps/v1", "Deployment", "web"), ["count/deployments.apps"]),
    (new("batch/v1", "Job", "run"), ["count/jobs.batch"]),
], ids=["configmap", "secret", "deployment", "job"])
def test_a_created_object_counts_under_its_resource_names(objects: Objects, obj: Json, names: list[str]) -> None:
    objects.add(quota("objects", dict.fromkeys(names, "10"), dict.fromkeys(names, "2")))
    admit(objects, obj)
    assert used(objects) == {"objects": dict.fromkeys(names, "3")}
    objects.status_writes.clear()
    admit(objects, obj, old=obj)
    assert objects.status_writes == []  # an update adds no object


def test_ignored_kinds_and_cluster_objects_are_never_charged(objects: Objects) -> None:
    objects.add(quota("objects", {"count/events": "0", "count/events.events.k8s.io": "0", "count/nodes": "0"},
                      {"count/events": "0", "count/events.events.k8s.io": "0", "count/nodes": "0"}))
    admit(objects, new("v1", "Event", "e"))
    admit(objects, new("events.k8s.io/v1", "Event", "e"))
    admit(objects, new("v1", "Node", "node-1", None))
    assert objects.status_writes == []


# ----------------------------------------------------------------- scopes


@pytest.mark.parametrize(("scopes", "charged"), [
    (["BestEffort"], ["best-effort"]),
    (["NotBestEffort"], ["burstable", "terminating"]),
    (["Terminating"], ["terminating"]),
    (["NotTerminating"], ["best-effort", "burstable"]),
    (["NotTerminating", "NotBestEffort"], ["burstable"]),
])
def test_a_scoped_quota_charges_only_the_pods_in_its_scopes(objects: Objects, scopes: list[str],
                                                          charged: list[str]) -> None:
    pods = {"best-effort": pod("best-effort"),
            "burstable": pod("burstable", containers=[container({"cpu": "100m"})]),
            "terminating": pod("terminating", containers=[container({"cpu": "100m"})], activeDeadlineSeconds=60)}
    objects.add(quota("scoped", {"count/pods": "10"}, {"count/pods": "0"}, scopes=scopes))
    for name, obj in pods.items():
        objects.status_writes.clear()
        admit(objects, obj)
        assert bool(objects.status_writes) == (name in charged), name


@pytest.mark.parametrize(("operator", "values", "charged"), [
    ("In", ["high"], ["high"]),
    ("NotIn", ["high"], ["low", "none"]),
    ("Exists", [], ["high", "low"]),
    ("DoesNotExist", [], ["none"]),
])
def test_a_priority_class_scope_selects_pods_by_their_class(objects: Objects, operator: str, values: list[str],
                                                          charged: list[str]) -> None:
    objects.add(quota("by-class", {"pods": "10"}, {"pods": "0"}, scopeSelector={"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": operator, "values": values}]}))
    for name in ("high", "low", "none"):
        objects.status_writes.clear()
        admit(objects, pod(name, **({"priorityClassName": name} if name != "none" else {})))
        assert bool(objects.status_writes) == (name in charged), name


def test_the_cross_namespace_affinity_scope(objects: Objects) -> None:
    objects.add(quota("cross", {"pods": "10"}, {"pods": "0"}, scopes=["CrossNamespacePodAffinity"]))
    term = {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "db"}}}
    admit(objects, pod("local", affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}))
    assert objects.status_writes == []
    admit(objects, pod("cross", affinity={"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": {**term, "namespaceSelector": {}}}]}}))
    assert used(objects) == {"cross": {"pods": "1"}}
