"""Server-side printing (``as=Table``) against kube's printers.

Expected cells come from kube's own tests where one exists: ``pkg/printers/internalversion/
printers_test.go`` (named per case; kube's cases run without ``Wide`` unless said, so only the
first five pod cells are compared with them: kube-apiserver always prints wide), apimachinery's
``duration_test.go`` ``TestHumanDuration``, and apiextensions' ``tableconvertor``. Objects carry no
creationTimestamp unless the case needs one, so their age is ``<unknown>`` as in kube's tests.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from fakeapi.apis.catalogue import ResourceType, default_catalogue
from fakeapi.machinery.status import StatusError
from fakeapi.printers.printers import human_duration
from fakeapi.printers.tables import (
    WatchTables,
    column_definitions,
    custom_column_definitions,
    row_cells,
    table,
    validate_include_object,
)

NOW = datetime(2025, 6, 1, 12, 0, 0, tzinfo=timezone.utc)
CATALOGUE = default_catalogue()


def resource_type(group: str, version: str, plural: str):
    resource = CATALOGUE.lookup(group, version, plural)
    assert resource is not None
    return resource


def served(group: str, plural: str) -> ResourceType:
    """The resource in its group's preferred version."""
    return next(t for t in CATALOGUE.served() if (t.group, t.plural) == (group, plural))


def custom_resource() -> ResourceType:
    return ResourceType(group="example.com", version="v1", kind="Widget", plural="widgets", singular="widget",
                        namespaced=True, verbs=("get", "list", "watch"), custom=True)


PODS = resource_type("", "v1", "pods")


def ago(**delta: float) -> str:
    return (NOW - timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%SZ")


def names(columns: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return [(c["name"], c["type"], c["priority"]) for c in columns]


def running(ready: bool = True, restarts: int = 0, finished: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"ready": ready, "restartCount": restarts, "state": {"running": {}}}
    if finished:
        status["lastState"] = {"terminated": {"finishedAt": finished}}
    return status


def pod(name: str, *, containers: int = 1, init: list[dict[str, Any]] | None = None, **status: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": f"c{i}"} for i in range(containers)],
                     **({"initContainers": init} if init is not None else {})},
            "status": status}


# --- duration ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("seconds", "expected"), [  # duration_test.go TestHumanDuration
    (1, "1s"), (70, "70s"), (190, "3m10s"), (70 * 60, "70m"), (47 * 3600, "47h"), (49 * 3600, "2d1h"),
    ((8 * 24 + 2) * 3600, "8d"), (367 * 24 * 3600, "367d"), ((365 * 2 * 24 + 25) * 3600, "2y1d"),
    ((365 * 8 * 24 + 2) * 3600, "8y"), (-2, "<invalid>"), (-2 + 1e-9, "0s"), (0, "0s"), (0.999, "0s"),
    (119.999, "119s"), (120, "2m"), (121, "2m1s"), (599.999, "9m59s"), (600, "10m"), (601, "10m"),
    (3 * 3600 - 0.001, "179m"), (3 * 3600, "3h"), (3 * 3600 + 60, "3h1m"), (8 * 3600 - 0.001, "7h59m"),
    (8 * 3600, "8h"), (8 * 3600 + 59 * 60, "8h"), (2 * 86400 - 0.001, "47h"), (2 * 86400, "2d"),
    (8 * 86400 - 0.001, "7d23h"), (8 * 86400 + 23 * 3600, "8d"), (2 * 365 * 86400 - 0.001, "729d"),
    (2 * 365 * 86400, "2y"), (2 * 365 * 86400 + 86400, "2y1d"), (4 * 365 * 86400, "4y"),
])
def test_human_duration_is_apimachinerys(seconds: float, expected: str) -> None:
    assert human_duration(seconds) == expected


# --- pods ----------------------------------------------------------------------------------------

def test_pod_columns() -> None:
    assert names(column_definitions(PODS)) == [
        ("Name", "string", 0), ("Ready", "string", 0), ("Status", "string", 0), ("Restarts", "string", 0),
        ("Age", "string", 0), ("IP", "string", 1), ("Node", "string", 1), ("Nominated Node", "string", 1),
        ("Readiness Gates", "string", 1)]
    name_column = column_definitions(PODS)[0]
    assert name_column["format"] == "name"
    assert name_column["description"].startswith("Name must be unique within a namespace.")
    assert column_definitions(PODS)[5]["description"] == (
        "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.")


CONTAINER_WAITING = {"state": {"waiting": {"reason": "ContainerWaitingReason"}}, "restartCount": 3}
TEN_SECONDS_AGO = ago(seconds=10)


@pytest.mark.parametrize(("obj", "expected"), [
    # TestPrintPod: name, containers, restarts, ready
    (pod("test1", containers=2, phase="podPhase", containerStatuses=[running(restarts=3), {"restartCount": 3}]),
     ["test1", "1/2", "podPhase", "6", "<unknown>"]),
    # TestPrintPod: a container error overwrites the phase
    (pod("test2", containers=2, phase="podPhase", containerStatuses=[running(restarts=3), CONTAINER_WAITING]),
     ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>"]),
    # TestPrintPod: the first container's reason wins
    (pod("test3", containers=2, phase="podPhase", containerStatuses=[
        CONTAINER_WAITING, {"state": {"terminated": {"reason": "ContainerTerminatedReason"}}, "restartCount": 3}]),
     ["test3", "0/2", "ContainerWaitingReason", "6", "<unknown>"]),
    # TestPrintPod: ready is not enough for running; the pod reason wins over its phase
    (pod("test5", containers=2, reason="podReason", phase="podPhase",
         containerStatuses=[running(restarts=3), {"ready": True, "restartCount": 3}]),
     ["test5", "1/2", "podReason", "6", "<unknown>"]),
    # TestPrintPod: one running, one completed, without and with the Ready condition
    (pod("test6", containers=2, phase="Running", containerStatuses=[
        {"ready": True, "restartCount": 3, "state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
        running(restarts=3)]),
     ["test6", "1/2", "NotReady", "6", "<unknown>"]),
    (pod("test6", containers=2, phase="Running", conditions=[{"type": "Ready", "status": "True"}], containerStatuses=[
        {"ready": True, "restartCount": 3, "state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
        running(restarts=3)]),
     ["test6", "1/2", "Running", "6", "<unknown>"]),
    # TestPrintPod: an init container restarting: Init:0/1 and the last restart's age
    (pod("test7", init=[{"name": "i"}], phase="podPhase",
         initContainerStatuses=[running(ready=False, restarts=3, finished=TEN_SECONDS_AGO)],
         containerStatuses=[{"ready": False, "restartCount": 0, "state": {"waiting": {}}}]),
     ["test7", "0/1", "Init:0/1", "3 (10s ago)", "<unknown>"]),
    # TestPrintPod: the second of two init containers restarting, the first done
    (pod("test10", init=[{"name": "i1"}, {"name": "i2"}], phase="podPhase", initContainerStatuses=[
        {"restartCount": 2, "state": {"terminated": {}}, "lastState": {"terminated": {"finishedAt": ago(minutes=2)}}},
        running(ready=False, restarts=3, finished=TEN_SECONDS_AGO)],
        containerStatuses=[{"state": {"waiting": {}}}]),
     ["test10", "0/1", "Init:1/2", "5 (10s ago)", "<unknown>"]),
    # TestPrintPod: init done; only app container restarts count
    (pod("test11", init=[{"name": "i"}], phase="Running", initContainerStatuses=[
        {"restartCount": 2, "state": {"terminated": {}}, "lastState": {"terminated": {"finishedAt": ago(minutes=2)}}}],
        containerStatuses=[running(ready=False, restarts=4, finished=ago(seconds=20))]),
     ["test11", "0/1", "Running", "4 (20s ago)", "<unknown>"]),
    # TestPrintPod: restarts 5d and 20d ago: the latest
    (pod("test14", containers=2, phase="Running", containerStatuses=[
        running(restarts=6, finished=ago(days=5)), running(restarts=3, finished=ago(days=20))]),
     ["test14", "2/2", "Running", "9 (5d ago)", "<unknown>"]),
    # TestPrintPod: scheduling gates
    (pod("test15", containers=2, phase="podPhase",
         conditions=[{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]),
     ["test15", "0/2", "SchedulingGated", "0", "<unknown>"]),
    # TestPrintPod: failed
    (pod("test17", phase="Failed", containerStatuses=[
        {"ready": False, "restartCount": 0, "state": {"terminated": {"reason": "Error", "exitCode": 1}}}]),
     ["test17", "0/1", "Error", "0", "<unknown>"]),
    # TestPrintPodWithRestartableInitContainer: two sidecars started, one app container
    (pod("test2", init=[{"name": "r1", "restartPolicy": "Always"}, {"name": "r2", "restartPolicy": "Always"}],
         phase="Running", conditions=[{"type": "Initialized", "status": "True"}], initContainerStatuses=[
             {**running(ready=False, restarts=3, finished=TEN_SECONDS_AGO), "name": "r1", "started": True},
             {**running(ready=False), "name": "r2", "started": True}],
         containerStatuses=[running(restarts=4, finished=ago(seconds=20))]),
     ["test2", "1/3", "Running", "7 (10s ago)", "<unknown>"]),
    # TestPrintPodWithRestartableInitContainer: the second sidecar running, not started
    (pod("test1", init=[{"name": "r1", "restartPolicy": "Always"}, {"name": "r2", "restartPolicy": "Always"}],
         phase="Pending", conditions=[{"type": "Initialized", "status": "False"}], initContainerStatuses=[
             {**running(ready=False, restarts=3, finished=TEN_SECONDS_AGO), "name": "r1", "started": True},
             {**running(ready=False), "name": "r2", "started": False}],
         containerStatuses=[{"ready": False, "restartCount": 0, "state": {"waiting": {}}}]),
     ["test1", "0/3", "Init:1/2", "3 (10s ago)", "<unknown>"]),
    # TestPrintPodWithRestartableInitContainer: statuses of containers the spec does not have
    (pod("test4", init=[{"name": "init1"}, {"name": "sidecar1", "restartPolicy": "Always"}], phase="Running",
         initContainerStatuses=[{"name": "initinvalid"}, {"name": "init1"}, {"name": "sidecar1"}],
         containerStatuses=[{"name": "containerinvalid"}, {"name": "container1"}]),
     ["test4", "0/2", "Init:0/2", "0", "<unknown>"]),
])
def test_pod_cells_match_kubes_printer_tests(obj: dict[str, Any], expected: list[Any]) -> None:
    assert row_cells(PODS, obj, NOW)[:5] == expected


@pytest.mark.parametrize(("obj", "expected"), [
    # TestPrintPod test18/test19/test20: terminal phases keep their reason when deleted
    (pod("test18", phase="Succeeded", containerStatuses=[
        {"ready": False, "restartCount": 0, "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}]),
     ["test18", "0/1", "Completed", "0", "<unknown>"]),
    (pod("test19", phase="Running", containerStatuses=[running(ready=False)]),
     ["test19", "0/1", "Terminating", "0", "<unknown>"]),
    (pod("test20", phase="Pending"), ["test20", "0/1", "Terminating", "0", "<unknown>"]),
    # printPod: a deleted pod on an unreachable node
    (pod("lost", phase="Running", reason="NodeLost"), ["lost", "0/1", "Unknown", "0", "<unknown>"]),
])
def test_deleted_pods(obj: dict[str, Any], expected: list[Any]) -> None:
    obj["metadata"]["deletionTimestamp"] = ago(seconds=10)
    assert row_cells(PODS, obj, NOW)[:5] == expected


def test_crash_loop_back_off_with_restarts() -> None:
    obj = pod("web-7d4b9c-x2x", phase="Running", podIPs=[{"ip": "10.0.0.7"}], containerStatuses=[{
        "name": "c0", "ready": False, "restartCount": 5, "state": {"waiting": {"reason": "CrashLoopBackOff"}},
        "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": ago(minutes=5)}}}])
    obj["metadata"]["creationTimestamp"] = ago(hours=3, minutes=2)
    obj["spec"]["nodeName"] = "node-1"
    assert row_cells(PODS, obj, NOW) == [
        "web-7d4b9c-x2x", "0/1", "CrashLoopBackOff", "5 (5m ago)", "3h2m", "10.0.0.7", "node-1", "<none>", "<none>"]


def test_pod_wide_cells() -> None:
    # TestPrintPodwide: IP, node, nominated node, readiness gates passed / gates
    obj = pod("test1", containers=2, phase="podPhase", podIPs=[{"ip": "1.1.1.1"}], nominatedNodeName="node1",
              conditions=[{"type": "condition1", "status": "False"}, {"type": "condition2", "status": "True"}],
              containerStatuses=[running(restarts=3), {"restartCount": 3}])
    obj["spec"].update(nodeName="test1", readinessGates=[{"conditionType": f"condition{i}"} for i in (1, 2, 3)])
    assert row_cells(PODS, obj, NOW) == ["test1", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"]


def test_completed_pods_get_the_row_condition() -> None:
    rows = table(PODS, [pod("done", phase="Succeeded"), pod("bad", phase="Failed"), pod("up", phase="Running")],
                 list_meta={"resourceVersion": "7"}, now=NOW)["rows"]
    assert rows[0]["conditions"] == [{"type": "Completed", "status": "True", "reason": "Succeeded",
                                      "message": "The pod has completed successfully."}]
    assert rows[1]["conditions"][0]["reason"] == "Failed"
    assert "conditions" not in rows[2]


# --- workloads -----------------------------------------------------------------------------------

def template(*containers: tuple[str, str]) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": n, "image": i} for n, i in containers]}}


def test_deployment() -> None:
    deployments = resource_type("apps", "v1", "deployments")
    assert names(column_definitions(deployments)) == [
        ("Name", "string", 0), ("Ready", "string", 0), ("Up-to-date", "string", 0), ("Available", "string", 0),
        ("Age", "string", 0), ("Containers", "string", 1), ("Images", "string", 1), ("Selector", "string", 1)]
    # TestPrintDeployment: ready/desired, updated, available, containers, images, selector
    obj = {"metadata": {"name": "test1", "creationTimestamp": ago(days=3)},
           "spec": {"replicas": 5, "template": template(("fake-container1", "fake-image1"),
                                                        ("fake-container2", "fake-image2")),
                    "selector": {"matchLabels": {"foo": "bar"}}},
           "status": {"replicas": 10, "updatedReplicas": 2, "availableReplicas": 1, "unavailableReplicas": 4}}
    assert row_cells(deployments, obj, NOW) == [
        "test1", "0/5", 2, 1, "3d", "fake-container1,fake-container2", "fake-image1,fake-image2", "foo=bar"]


def test_replica_set_stateful_set_daemon_set() -> None:
    selector = {"matchLabels": {"b": "2", "a": "1"}, "matchExpressions": [
        {"key": "env", "operator": "In", "values": ["prod", "dev"]}, {"key": "zz", "operator": "DoesNotExist"}]}
    replica_set = {"metadata": {"name": "rs"}, "spec": {"replicas": 5, "selector": selector,
                                                         "template": template(("c", "i"))},
                   "status": {"replicas": 5, "readyReplicas": 2}}
    assert row_cells(resource_type("apps", "v1", "replicasets"), replica_set, NOW) == [
        "rs", 5, 5, 2, "<unknown>", "c", "i", "a=1,b=2,env in (dev,prod),!zz"]
    stateful_set = {"metadata": {"name": "db"}, "spec": {"replicas": 3, "template": template(("pg", "postgres"))},
                    "status": {"readyReplicas": 1}}
    assert row_cells(resource_type("apps", "v1", "statefulsets"), stateful_set, NOW) == [
        "db", "1/3", "<unknown>", "pg", "postgres"]
    daemon_set = {"metadata": {"name": "ds"}, "spec": {"selector": {}, "template": {
        "spec": {"nodeSelector": {"os": "linux"}, "containers": [{"name": "a", "image": "b"}]}}},
        "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 2, "numberReady": 1,
                   "updatedNumberScheduled": 2, "numberAvailable": 1}}
    assert row_cells(resource_type("apps", "v1", "daemonsets"), daemon_set, NOW) == [
        "ds", 3, 2, 1, 2, 1, "os=linux", "<unknown>", "a", "b", "<none>"]


def test_jobs_and_cron_jobs() -> None:
    jobs = resource_type("batch", "v1", "jobs")
    assert [c["name"] for c in column_definitions(jobs)] == [
        "Name", "Status", "Completions", "Duration", "Age", "Containers", "Images", "Selector"]
    complete = {"metadata": {"name": "job1"}, "spec": {"completions": 2, "template": template()},
                "status": {"succeeded": 2, "startTime": ago(minutes=10), "completionTime": ago(minutes=7),
                           "conditions": [{"type": "Complete", "status": "True"}]}}
    assert row_cells(jobs, complete, NOW)[:5] == ["job1", "Complete", "2/2", "3m", "<unknown>"]
    parallel = {"metadata": {"name": "job2"}, "spec": {"parallelism": 3, "template": template()},
                "status": {"succeeded": 0, "startTime": ago(seconds=30)}}
    assert row_cells(jobs, parallel, NOW)[:5] == ["job2", "Running", "0/1 of 3", "30s", "<unknown>"]
    cron = {"metadata": {"name": "nightly"}, "spec": {"schedule": "0 0 * * *", "suspend": False, "jobTemplate": {
        "spec": {"template": template(("x", "busybox"))}}}, "status": {"active": [{}], "lastScheduleTime": ago(hours=1)}}
    assert row_cells(resource_type("batch", "v1", "cronjobs"), cron, NOW) == [
        "nightly", "0 0 * * *", "<none>", "False", 1, "60m", "<unknown>", "x", "busybox", "<none>"]


# --- services, endpoints, ingresses --------------------------------------------------------------

SERVICES = resource_type("", "v1", "services")


@pytest.mark.parametrize(("spec", "status", "expected"), [
    ({"type": "ClusterIP", "clusterIPs": ["10.0.0.1"], "ports": [{"port": 443, "protocol": "TCP"}]}, {},
     ["ClusterIP", "10.0.0.1", "<none>", "443/TCP"]),
    ({"type": "ClusterIP", "clusterIP": "None", "clusterIPs": ["None"]}, {}, ["ClusterIP", "None", "<none>", "<none>"]),
    ({"type": "NodePort", "clusterIPs": ["10.0.0.2"], "externalIPs": ["1.1.1.1"],
      "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}]}, {},
     ["NodePort", "10.0.0.2", "1.1.1.1", "80:30080/TCP"]),
    # TestPrintServiceLoadBalancer (its Wide case: kube-apiserver prints wide, addresses unclipped)
    ({"type": "LoadBalancer", "clusterIPs": ["1.5.6.7"], "ports": [
        {"port": 80, "protocol": "TCP"}, {"port": 8090, "protocol": "UDP"}, {"port": 8000, "protocol": "TCP"}]},
     {"loadBalancer": {"ingress": [{"ip": "2.3.4.5"}, {"ip": "3.4.5.6"}, {"ip": "5.6.7.8", "hostname": "host5678"}]}},
     ["LoadBalancer", "1.5.6.7", "2.3.4.5,3.4.5.6,5.6.7.8", "80/TCP,8090/UDP,8000/TCP"]),
    # TestPrintServiceLoadBalancer: pending
    ({"type": "LoadBalancer", "clusterIPs": ["1.3.4.5"], "ports": [
        {"port": 80, "protocol": "TCP"}, {"port": 8090, "protocol": "UDP"}, {"port": 8000, "protocol": "TCP"},
        {"port": 7777, "protocol": "SCTP"}]}, {},
     ["LoadBalancer", "1.3.4.5", "<pending>", "80/TCP,8090/UDP,8000/TCP,7777/SCTP"]),
    ({"type": "ExternalName", "externalName": "db.example.com"}, {},
     ["ExternalName", "<none>", "db.example.com", "<none>"]),
])
def test_services_of_each_type(spec: dict[str, Any], status: dict[str, Any], expected: list[Any]) -> None:
    obj = {"metadata": {"name": "svc"}, "spec": {**spec, "selector": {"app": "web"}}, "status": status}
    assert row_cells(SERVICES, obj, NOW) == ["svc", *expected, "<unknown>", "app=web"]


def test_endpoints_and_ingresses() -> None:
    endpoints = {"metadata": {"name": "web"}, "subsets": [
        {"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"port": 8080}, {"port": 9090}]},
        {"addresses": [{"ip": "fd00::1"}]}]}
    assert row_cells(resource_type("", "v1", "endpoints"), endpoints, NOW) == [
        "web", "10.0.0.1:8080,10.0.0.2:8080,10.0.0.1:9090 + 2 more...", "<unknown>"]
    assert row_cells(resource_type("", "v1", "endpoints"), {"metadata": {"name": "e"}}, NOW)[1] == "<none>"
    ingress = {"metadata": {"name": "ing"}, "spec": {"ingressClassName": "nginx", "tls": [{}], "rules": [
        {"host": "a.example"}, {"host": "b.example"}, {}, {"host": "c.example"}, {"host": "d.example"}]},
        "status": {"loadBalancer": {"ingress": [{"hostname": "lb.example"}, {"ip": "1.2.3.4"}]}}}
    assert row_cells(resource_type("networking.k8s.io", "v1", "ingresses"), ingress, NOW) == [
        "ing", "nginx", "a.example,b.example,c.example + 2 more...", "1.2.3.4,lb.example", "80, 443", "<unknown>"]


# --- nodes, namespaces, config -------------------------------------------------------------------

NODES = resource_type("", "v1", "nodes")


@pytest.mark.parametrize(("conditions", "unschedulable", "status"), [  # TestPrintNodeStatus
    ([{"type": "Ready", "status": "True"}], False, "Ready"),
    ([{"type": "Ready", "status": "True"}], True, "Ready,SchedulingDisabled"),
    ([{"type": "Ready", "status": "False"}], False, "NotReady"),
    ([{"type": "Ready", "status": "Unknown"}], True, "NotReady,SchedulingDisabled"),
    ([{"type": "MemoryPressure", "status": "False"}], False, "Unknown"),
    ([], True, "Unknown,SchedulingDisabled"),
])
def test_node_status(conditions: list[dict[str, str]], unschedulable: bool, status: str) -> None:
    obj = {"metadata": {"name": "foo"}, "spec": {"unschedulable": unschedulable}, "status": {"conditions": conditions}}
    assert row_cells(NODES, obj, NOW)[1] == status


def test_node_roles_and_wide_cells() -> None:
    # TestPrintNodeRole: node-role.kubernetes.io/<role> keys and kubernetes.io/role values, sorted
    obj = {"metadata": {"name": "n1", "creationTimestamp": ago(days=12), "labels": {
        "node-role.kubernetes.io/foo": "", "node-role.kubernetes.io/bar": "", "kubernetes.io/role": "node",
        "node-role.kubernetes.io/": ""}},
        "status": {"conditions": [{"type": "Ready", "status": "True"}],
                   "addresses": [{"type": "InternalIP", "address": "192.168.0.4"}],
                   "nodeInfo": {"kubeletVersion": "v1.35.0", "osImage": "Debian GNU/Linux 12",
                                "containerRuntimeVersion": "containerd://2.0.0"}}}
    assert row_cells(NODES, obj, NOW) == ["n1", "Ready", "bar,foo,node", "12d", "v1.35.0", "192.168.0.4", "<none>",
                                          "Debian GNU/Linux 12", "<unknown>", "containerd://2.0.0"]
    assert row_cells(NODES, {"metadata": {"name": "n2"}}, NOW)[2] == "<none>"


@pytest.mark.parametrize(("group", "plural", "obj", "expected"), [
    ("", "namespaces", {"metadata": {"name": "kube-system"}, "status": {"phase": "Active"}},
     ["kube-system", "Active", "<unknown>"]),
    ("", "configmaps", {"metadata": {"name": "cm"}, "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}},
     ["cm", 3, "<unknown>"]),
    ("", "secrets", {"metadata": {"name": "s"}, "type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}},
     ["s", "kubernetes.io/tls", 2, "<unknown>"]),
    ("", "serviceaccounts", {"metadata": {"name": "default"}}, ["default", "<unknown>"]),
    ("coordination.k8s.io", "leases", {"metadata": {"name": "kube-scheduler"}, "spec": {"holderIdentity": "h_1"}},
     ["kube-scheduler", "h_1", "<unknown>"]),
    ("scheduling.k8s.io", "priorityclasses", {"metadata": {"name": "system-node-critical"}, "value": 2000001000,
                                              "preemptionPolicy": "PreemptLowerPriority"},
     ["system-node-critical", 2000001000, False, "<unknown>", "PreemptLowerPriority"]),
    ("storage.k8s.io", "storageclasses", {"metadata": {"name": "standard", "annotations": {
        "storageclass.kubernetes.io/is-default-class": "true"}}, "provisioner": "rancher.io/local-path",
        "volumeBindingMode": "WaitForFirstConsumer"},
     ["standard (default)", "rancher.io/local-path", "Delete", "WaitForFirstConsumer", False, "<unknown>"]),
    ("rbac.authorization.k8s.io", "clusterrolebindings", {
        "metadata": {"name": "admins"}, "roleRef": {"kind": "ClusterRole", "name": "cluster-admin"}, "subjects": [
            {"kind": "Group", "name": "system:masters"}, {"kind": "User", "name": "alice"},
            {"kind": "ServiceAccount", "namespace": "kube-system", "name": "ctrl"}, {"kind": "User", "name": "bob"}]},
     ["admins", "ClusterRole/cluster-admin", "<unknown>", "alice, bob", "system:masters", "kube-system/ctrl"]),
    ("policy", "poddisruptionbudgets", {"metadata": {"name": "pdb"}, "spec": {"minAvailable": "50%"},
                                        "status": {"disruptionsAllowed": 1}},
     ["pdb", "50%", "N/A", 1, "<unknown>"]),
    ("networking.k8s.io", "networkpolicies", {"metadata": {"name": "deny"}, "spec": {"podSelector": {}}},
     ["deny", "<none>", "<unknown>"]),
    ("", "resourcequotas", {"metadata": {"name": "q"}, "status": {
        "hard": {"pods": "10", "limits.cpu": "4", "requests.cpu": "2"},
        "used": {"pods": "3", "requests.cpu": "500m"}}},
     ["q", "pods: 3/10, requests.cpu: 500m/2", "limits.cpu: 0/4", "<unknown>"]),
    ("", "replicationcontrollers", {"metadata": {"name": "rc"}, "spec": {"replicas": 2, "selector": {"app": "x"},
                                                                          "template": template(("a", "b"))},
                                    "status": {"replicas": 2, "readyReplicas": 1}},
     ["rc", 2, 2, 1, "<unknown>", "a", "b", "app=x"]),
    ("", "persistentvolumes", {"metadata": {"name": "pv1"}, "spec": {
        "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce"],
        "persistentVolumeReclaimPolicy": "Retain", "claimRef": {"namespace": "ns", "name": "data"},
        "storageClassName": "fast", "volumeMode": "Filesystem"}, "status": {"phase": "Bound"}},
     ["pv1", "10Gi", "RWO,RWX", "Retain", "Bound", "ns/data", "fast", "<unset>", "", "<unknown>", "Filesystem"]),
    ("", "persistentvolumeclaims", {"metadata": {"name": "data"}, "spec": {
        "volumeName": "pv1", "storageClassName": "fast", "volumeMode": "Filesystem"},
        "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"]}},
     ["data", "Bound", "pv1", "10Gi", "RWO", "fast", "<unset>", "<unknown>", "Filesystem"]),
    ("", "persistentvolumeclaims", {"metadata": {"name": "pending"}, "spec": {"storageClassName": "fast"},
                                    "status": {"phase": "Pending"}},
     ["pending", "Pending", "", "", "", "fast", "<unset>", "<unknown>", "<unset>"]),
])
def test_other_kinds(group: str, plural: str, obj: dict[str, Any], expected: list[Any]) -> None:
    resource = served(group, plural)
    cells = row_cells(resource, obj, NOW)
    assert cells == expected
    assert len(cells) == len(column_definitions(resource))


def test_hpa_targets_in_both_versions() -> None:
    v2 = {"apiVersion": "autoscaling/v2", "metadata": {"name": "web"}, "spec": {
        "scaleTargetRef": {"kind": "Deployment", "name": "web"}, "minReplicas": 1, "maxReplicas": 10, "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}},
            {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "1k"}}},
            {"type": "Resource", "resource": {"name": "memory", "target": {"averageValue": "1Gi"}}}]},
        "status": {"currentReplicas": 3, "currentMetrics": [
            {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 42}}}]}}
    assert row_cells(resource_type("autoscaling", "v2", "horizontalpodautoscalers"), v2, NOW) == [
        "web", "Deployment/web", "cpu: 42%/80%, <unknown>/1k + 1 more...", "1", 10, 3, "<unknown>"]
    v1 = {"apiVersion": "autoscaling/v1", "metadata": {"name": "web"}, "spec": {
        "scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5, "targetCPUUtilizationPercentage": 50},
        "status": {"currentReplicas": 1}}
    assert row_cells(resource_type("autoscaling", "v1", "horizontalpodautoscalers"), v1, NOW)[2:4] == [
        "cpu: <unknown>/50%", "<unset>"]


def test_hpa_without_metrics_prints_the_default_cpu_target() -> None:
    # autoscaling/v2 defaulting: no metric is an 80% CPU utilization target
    hpa = {"apiVersion": "autoscaling/v2", "metadata": {"name": "h"}, "spec": {
        "scaleTargetRef": {"kind": "Deployment", "name": "web"}, "minReplicas": 2, "maxReplicas": 4}}
    assert row_cells(resource_type("autoscaling", "v2", "horizontalpodautoscalers"), hpa, NOW)[2] == (
        "cpu: <unknown>/80%")


@pytest.mark.parametrize(("spec", "conditions", "expected"), [  # kube-aggregator apiservice/etcd ConvertToTable
    ({}, [{"type": "Available", "status": "True", "reason": "Local"}], ["Local", "True"]),
    ({"service": {"namespace": "kube-system", "name": "metrics-server"}},
     [{"type": "Available", "status": "False", "reason": "MissingEndpoints"}],
     ["kube-system/metrics-server", "False (MissingEndpoints)"]),
    ({}, [], ["Local", "Unknown"]),
])
def test_api_services(spec: dict[str, Any], conditions: list[dict[str, str]], expected: list[str]) -> None:
    obj = {"metadata": {"name": "v1.metrics.k8s.io"}, "spec": spec, "status": {"conditions": conditions}}
    assert row_cells(served("apiregistration.k8s.io", "apiservices"), obj, NOW) == [
        "v1.metrics.k8s.io", *expected, "<unknown>"]


def test_events_core_and_events_k8s_io() -> None:
    events = resource_type("", "v1", "events")
    assert [(c["name"], c["priority"]) for c in column_definitions(events)] == [
        ("Last Seen", 0), ("Type", 0), ("Reason", 0), ("Object", 0), ("Subobject", 1), ("Source", 1),
        ("Message", 0), ("First Seen", 1), ("Count", 1), ("Name", 1)]
    core = {"apiVersion": "v1", "metadata": {"name": "web.17a"}, "type": "Warning", "reason": "BackOff",
            "involvedObject": {"kind": "Pod", "name": "web", "fieldPath": "spec.containers{web}"},
            "source": {"component": "kubelet", "host": "node-1"}, "message": "Back-off restarting\n",
            "firstTimestamp": ago(minutes=30), "lastTimestamp": ago(seconds=40), "count": 7}
    assert row_cells(events, core, NOW) == ["40s", "Warning", "BackOff", "pod/web", "spec.containers{web}",
                                            "kubelet, node-1", "Back-off restarting", "30m", 7, "web.17a"]
    new = {"apiVersion": "events.k8s.io/v1", "metadata": {"name": "e2"}, "type": "Normal", "reason": "Scheduled",
           "regarding": {"kind": "Pod", "name": "web"}, "note": "assigned", "reportingController": "default-scheduler",
           "eventTime": "2025-06-01T11:59:00.000000Z"}
    assert row_cells(resource_type("events.k8s.io", "v1", "events"), new, NOW) == [
        "60s", "Normal", "Scheduled", "pod/web", "", "default-scheduler", "assigned", "60s", 1, "e2"]


# --- default convertor ---------------------------------------------------------------------------

@pytest.mark.parametrize(("group", "plural"), [
    ("rbac.authorization.k8s.io", "roles"), ("rbac.authorization.k8s.io", "clusterroles"), ("", "limitranges"),
    ("apiextensions.k8s.io", "customresourcedefinitions")])
def test_resources_without_printer_use_the_default_convertor(group: str, plural: str) -> None:
    resource = served(group, plural)
    assert names(column_definitions(resource)) == [("Name", "string", 0), ("Created At", "date", 0)]
    obj = {"metadata": {"name": "x", "creationTimestamp": "2025-05-01T10:00:00Z"}}
    assert row_cells(resource, obj, NOW) == ["x", "2025-05-01T10:00:00Z"]
    empty = table(resource, [], list_meta={"resourceVersion": "3"}, now=NOW)
    assert empty["rows"] is None  # rest/table.go appends to a nil slice


# --- custom resources ----------------------------------------------------------------------------

COLUMNS = [
    {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "description": "Desired replicas"},
    {"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio", "priority": 1},
    {"name": "Paused", "type": "boolean", "jsonPath": ".spec.paused"},
    {"name": "Image", "type": "string", "jsonPath": ".spec.containers[0].image"},
    {"name": "Labels", "type": "string", "jsonPath": ".metadata.labels"},
    {"name": "Missing", "type": "string", "jsonPath": ".spec.nothing.here"},
    {"name": "Started", "type": "date", "jsonPath": ".status.startTime"},
]


def test_custom_resource_columns() -> None:
    definitions = custom_column_definitions(COLUMNS)
    assert [(c["name"], c["type"], c["priority"]) for c in definitions] == [
        ("Name", "string", 0), ("Ready", "string", 0), ("Replicas", "integer", 0), ("Ratio", "number", 1),
        ("Paused", "boolean", 0), ("Image", "string", 0), ("Labels", "string", 0), ("Missing", "string", 0),
        ("Started", "date", 0)]
    assert definitions[1]["description"] == (
        'Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Ready")].status')
    assert definitions[2]["description"] == "Desired replicas"
    custom = custom_resource()
    obj = {"apiVersion": "example.com/v1", "kind": "Widget",
           "metadata": {"name": "w1", "labels": {"b": "<2>", "a": "1"}},
           "spec": {"replicas": 3.7, "ratio": 2, "paused": True, "containers": [{"image": "nginx:1.27"}]},
           "status": {"startTime": ago(minutes=5), "conditions": [
               {"type": "Synced", "status": "True"}, {"type": "Ready", "status": "False"}]}}
    rows = table(custom, [obj], now=NOW, additional_printer_columns=COLUMNS)["rows"]
    assert rows[0]["cells"] == ["w1", "False", 3, 2.0, True, "nginx:1.27",
                                '{"a":"1","b":"\\u003c2\\u003e"}', None, "5m"]


@pytest.mark.parametrize(("column", "value", "cell"), [
    ({"type": "string"}, 1.5, "1.5"), ({"type": "string"}, 1e6, "1e+06"), ({"type": "string"}, True, "true"),
    ({"type": "string"}, None, "<no value>"), ({"type": "integer"}, "3", None), ({"type": "boolean"}, "true", None),
    ({"type": "date"}, "yesterday", "<invalid>"), ({"type": "date"}, "", "<unknown>"), ({"type": "date"}, 5, None),
])
def test_custom_cells_by_type(column: dict[str, str], value: Any, cell: Any) -> None:
    columns = [{"name": "X", "jsonPath": ".spec.x", **column}]
    custom = custom_resource()
    obj = {"metadata": {"name": "w"}, "spec": {"x": value}}
    assert table(custom, [obj], now=NOW, additional_printer_columns=columns)["rows"][0]["cells"] == ["w", cell]


def test_custom_resource_without_printer_columns_gets_age() -> None:
    definitions = custom_column_definitions(None)
    assert [(c["name"], c["type"]) for c in definitions] == [("Name", "string"), ("Age", "date")]
    assert definitions[1]["description"].startswith("CreationTimestamp is a timestamp")


# --- the Table -----------------------------------------------------------------------------------

def test_list_table_with_metadata_rows() -> None:
    objects = [pod(f"p{i}", phase="Pending") for i in range(2)]
    for obj in objects:
        obj["metadata"].update(namespace="default", resourceVersion="5", uid="u")
    result = table(PODS, objects, list_meta={"resourceVersion": "9", "continue": "tok", "remainingItemCount": 4},
                   now=NOW)
    assert result["kind"] == "Table" and result["apiVersion"] == "meta.k8s.io/v1"
    assert result["metadata"] == {"resourceVersion": "9", "continue": "tok", "remainingItemCount": 4}
    assert result["rows"][0]["object"] == {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                           "metadata": objects[0]["metadata"]}
    assert list(result["rows"][0]) == ["cells", "object"]
    assert table(PODS, [], list_meta={"resourceVersion": "9"}, now=NOW)["rows"] == []


def test_include_object_policies() -> None:
    obj = pod("p", phase="Running")
    obj["metadata"]["resourceVersion"] = "12"
    assert table(PODS, [obj], include_object="Object", now=NOW)["rows"][0]["object"] is obj
    assert table(PODS, [obj], include_object="None", now=NOW)["rows"][0]["object"] is None
    beta = table(PODS, [obj], now=NOW, api_version="meta.k8s.io/v1beta1")
    assert beta["apiVersion"] == beta["rows"][0]["object"]["apiVersion"] == "meta.k8s.io/v1beta1"
    assert beta["metadata"] == {"resourceVersion": "12"}  # a single object's resource version
    assert validate_include_object("Object") is None and validate_include_object(None) is None
    error = validate_include_object("Everything")
    assert isinstance(error, StatusError) and error.code == 400
    assert error.message == ("Unable to convert to Table as requested: includeObject: Invalid value: "
                             "\"Everything\": must be 'Metadata', 'Object', 'None', or empty")


def test_watch_sends_column_definitions_on_the_first_event_only() -> None:
    watch = WatchTables(PODS)
    first = watch.event_object(pod("a", phase="Running"), NOW)
    second = watch.event_object(pod("b", phase="Running"), NOW)
    assert first["columnDefinitions"] == column_definitions(PODS)
    assert second["columnDefinitions"] is None
    assert second["rows"][0]["cells"][0] == "b"


def test_five_thousand_pods_print_quickly() -> None:
    objects = []
    for i in range(5000):
        obj = pod(f"web-{i}", containers=2, phase="Running", podIPs=[{"ip": f"10.1.{i // 250}.{i % 250}"}],
                  containerStatuses=[running(), running(restarts=2, finished=ago(hours=1))])
        obj["metadata"].update(namespace=f"ns-{i % 50}", creationTimestamp=ago(days=2), resourceVersion=str(i))
        objects.append(obj)
    started = time.perf_counter()
    result = table(PODS, objects, list_meta={"resourceVersion": "5000"}, now=NOW)
    assert time.perf_counter() - started < 1.0
    assert result["rows"][4999]["cells"][:5] == ["web-4999", "2/2", "Running", "2 (60m ago)", "2d"]
