"""A CRD whose versions a conversion webhook converts, read and written by kubectl and the Python
client in the version that is not stored: v1 stores ``spec.size``, v2 serves it as
``spec.replicas`` (``webhook_server.conversion_answer``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from kubernetes import client
from webhook_server import WebhookServer, conversion_crd

GROUP = "conversion.clients.dev"


@pytest.fixture(scope="module")
def converted(kubectl: Callable[..., str]) -> Iterator[None]:
    with WebhookServer() as hooks:
        crd = conversion_crd(GROUP, "widgets", "Widget",
                             {"url": hooks.url("/fake/convert"), "caBundle": hooks.ca_bundle})
        kubectl("apply", "-f", "-", input=json.dumps(crd))
        kubectl("wait", "--for=condition=established", f"crd/widgets.{GROUP}", "--timeout=5s")
        yield


def test_kubectl_reads_and_writes_the_converted_version(kubectl: Callable[..., str], converted: None) -> None:
    stored = {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": "stored", "namespace": "default"},
              "spec": {"size": 3}}
    kubectl("create", "-f", "-", input=json.dumps(stored))
    read = json.loads(kubectl("get", f"widgets.v2.{GROUP}", "stored", "-n", "default", "-o", "json"))
    assert (read["apiVersion"], read["spec"]) == (f"{GROUP}/v2", {"replicas": 3})
    served = {**stored, "apiVersion": f"{GROUP}/v2", "metadata": {"name": "served", "namespace": "default"},
              "spec": {"replicas": 5}}
    kubectl("apply", "-f", "-", input=json.dumps(served))
    read = json.loads(kubectl("get", f"widgets.v1.{GROUP}", "served", "-n", "default", "-o", "json"))
    assert (read["apiVersion"], read["spec"]) == (f"{GROUP}/v1", {"size": 5})
    listed = json.loads(kubectl("get", f"widgets.v2.{GROUP}", "-n", "default", "-o", "json"))
    assert sorted((item["metadata"]["name"], item["spec"]["replicas"]) for item in listed["items"]) == [
        ("served", 5), ("stored", 3)]
    kubectl("delete", f"widgets.v2.{GROUP}", "served", "stored", "-n", "default")


def test_the_python_client_reads_and_patches_the_converted_version(api_client: client.ApiClient,
                                                                   converted: None) -> None:
    objects = client.CustomObjectsApi(api_client)
    objects.create_namespaced_custom_object(GROUP, "v1", "default", "widgets", {
        "apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": "py"}, "spec": {"size": 2}})
    patched = objects.patch_namespaced_custom_object(GROUP, "v2", "default", "widgets", "py",
                                                     {"spec": {"replicas": 4}})
    assert (patched["apiVersion"], patched["spec"]) == (f"{GROUP}/v2", {"replicas": 4})
    assert objects.get_namespaced_custom_object(GROUP, "v1", "default", "widgets", "py")["spec"] == {"size": 4}
    listed = objects.list_namespaced_custom_object(GROUP, "v2", "default", "widgets")
    assert [(item["metadata"]["name"], item["spec"]) for item in listed["items"]] == [("py", {"replicas": 4})]
    objects.delete_namespaced_custom_object(GROUP, "v2", "default", "widgets", "py")
