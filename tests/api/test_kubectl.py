"""kubectl, the real binary, against a real fakeapi process."""

from __future__ import annotations

import json
import subprocess
import time

import pytest


def test_api_resources_lists_core_and_groups(kubectl):
    out = kubectl("api-resources", "-o", "name")
    names = set(out.split())
    for name in ("pods", "configmaps", "namespaces", "deployments.apps", "leases.coordination.k8s.io",
                 "customresourcedefinitions.apiextensions.k8s.io"):
        assert name in names


def test_default_namespaces_exist(kubectl):
    out = kubectl("get", "namespaces", "-o", "name")
    assert set(out.split()) >= {"namespace/default", "namespace/kube-system", "namespace/kube-public",
                                "namespace/kube-node-lease"}


MANIFESTS = """
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-1, labels: {tier: web}}
data: {a: "1"}
---
apiVersion: v1
kind: Secret
metadata: {name: s-1}
stringData: {password: x}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {tier: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: l-1}
spec: {holderIdentity: me}
"""


def test_create_get_delete_several_kinds(kubectl):
    out = kubectl("create", "-f", "-", input=MANIFESTS)
    assert "configmap/cm-1 created" in out and "deployment.apps/web created" in out
    got = json.loads(kubectl("get", "cm", "cm-1", "-o", "json"))
    assert got["data"] == {"a": "1"}
    assert got["metadata"]["uid"] and got["metadata"]["resourceVersion"]
    deploy = json.loads(kubectl("get", "deploy", "web", "-o", "json"))
    assert deploy["metadata"]["generation"] == 1
    labelled = kubectl("get", "cm,deploy", "-l", "tier=web", "-o", "name").split()
    assert sorted(labelled) == ["configmap/cm-1", "deployment.apps/web"]
    err = kubectl("create", "-f", "-", input=MANIFESTS, check=False)
    assert "AlreadyExists" in err or "already exists" in err
    kubectl("delete", "-f", "-", input=MANIFESTS)
    missing = kubectl("get", "cm", "cm-1", check=False)
    assert 'configmaps "cm-1" not found' in missing


def test_chunked_list_across_namespaces(kubectl):
    # (kubectl's generator commands such as `create namespace` send protobuf, which fakeapi
    # answers with 415 for now; manifests go as JSON.)
    docs = [json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            for ns in ("chunk-a", "chunk-b")]
    for i in range(10):
        for ns in ("chunk-a", "chunk-b"):
            docs.append(json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                                    "metadata": {"name": f"c{i}", "namespace": ns, "labels": {"set": "chunk"}}}))
    kubectl("create", "-f", "-", input="".join(d + "\n" for d in docs))
    out = kubectl("get", "cm", "-A", "--chunk-size=3", "-l", "set=chunk", "-o", "name", "-v=6")
    assert len(out.split()) == 20
    full = kubectl("get", "cm", "-A", "--chunk-size=3", "-v=6", check=False)
    assert full.count("continue=") >= 5  # the pager really paged


def test_get_watch_sees_changes_and_wait_for_delete(kubectl, kubectl_env):
    kubectl("create", "-f", "-", input='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w-1"},"data":{"v":"0"}}')
    watch = subprocess.Popen(["kubectl", "get", "cm", "w-1", "-w", "-o", "json", "--output-watch-events"],
                             env=kubectl_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.0)
        for v in ("1", "2"):
            body = json.loads(kubectl("get", "cm", "w-1", "-o", "json"))
            body["data"]["v"] = v
            kubectl("replace", "-f", "-", input=json.dumps(body))
        waiter = subprocess.Popen(["kubectl", "wait", "--for=delete", "cm/w-1", "--timeout=20s"],
                                  env=kubectl_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        kubectl("delete", "cm", "w-1")
        assert waiter.wait(30) == 0, waiter.stderr.read()
        time.sleep(0.5)
    finally:
        watch.terminate()
    out, _ = watch.communicate(timeout=10)
    decoder = json.JSONDecoder()
    events, pos = [], 0
    out = out.strip()
    while pos < len(out):
        obj, end = decoder.raw_decode(out, pos)
        events.append((obj["type"], obj["object"]["data"].get("v")))
        pos = end
        while pos < len(out) and out[pos].isspace():
            pos += 1
    assert events[0] == ("ADDED", "0")
    assert ("MODIFIED", "1") in events and ("MODIFIED", "2") in events
    assert events[-1][0] == "DELETED"


@pytest.mark.parametrize("bad", ["a in (", "!", "a==b==c"])
def test_bad_label_selector_is_400(kubectl, bad):
    err = kubectl("get", "pods", "-l", bad, check=False)
    assert "unable to parse requirement" in err or "BadRequest" in err or "couldn't parse" in err
