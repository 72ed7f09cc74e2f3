"""Server-side printing: ``kubectl get`` asks for ``as=Table`` and prints the server's columns."""

from __future__ import annotations

import subprocess
import time

import httpx

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def test_kubectl_get_prints_kube_columns(kubectl):
    kubectl("create", "namespace", "tables")
    kubectl("create", "deployment", "web", "-n", "tables", "--image=nginx", "--replicas=2")
    kubectl("run", "p1", "-n", "tables", "--image=nginx")
    pods = kubectl("get", "pods", "-n", "tables").splitlines()
    assert pods[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert pods[1].split()[:4] == ["p1", "0/1", "Pending", "0"]
    deployments = kubectl("get", "deployments", "-n", "tables", "-o", "wide").splitlines()
    assert deployments[0].split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]
    assert deployments[1].split()[:2] == ["web", "0/2"] and deployments[1].split()[-1] == "app=web"
    namespaces = kubectl("get", "namespace", "tables").splitlines()
    assert namespaces[1].split()[:2] == ["tables", "Active"]


def test_kubectl_get_watch_prints_rows_for_changes(kubectl, kubectl_env):
    kubectl("create", "configmap", "watched", "-n", "tables", "--from-literal=a=1")
    watch = subprocess.Popen(["kubectl", "get", "configmaps", "-n", "tables", "-w", "--request-timeout=4s"],
                             env=kubectl_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    kubectl("create", "configmap", "late", "-n", "tables", "--from-literal=a=1", "--from-literal=b=2")
    out, _ = watch.communicate(timeout=15)
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "DATA", "AGE"]
    assert any(line.split()[:2] == ["late", "2"] for line in lines[1:]), out


def test_table_http_shape_and_include_object(server):
    url = f"{server.url}/api/v1/namespaces/tables/configmaps"
    body = httpx.get(url, headers={"Accept": TABLE}, params={"includeObject": "None"}).json()
    assert (body["kind"], body["apiVersion"]) == ("Table", "meta.k8s.io/v1")
    assert [c["name"] for c in body["columnDefinitions"]] == ["Name", "Data", "Age"]
    assert all(row["object"] is None for row in body["rows"]) and body["metadata"]["resourceVersion"]
    metadata_rows = httpx.get(url, headers={"Accept": TABLE}).json()["rows"]
    assert metadata_rows[0]["object"]["kind"] == "PartialObjectMetadata"
    bad = httpx.get(url, headers={"Accept": TABLE}, params={"includeObject": "Everything"})
    assert bad.status_code == 400 and "Unable to convert to Table as requested" in bad.json()["message"]
