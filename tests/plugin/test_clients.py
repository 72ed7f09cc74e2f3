"""Clients outside the test's own code reach the test's server: kubectl in a subprocess through
``KUBECONFIG``, and the Python ``kubernetes`` client through ``k8s_client``."""

from __future__ import annotations

import pytest
from plugin_manifests import WIDGET, WIDGET_CRD

USER_TESTS = f'''
import os
import subprocess

from kubernetes import client, config, watch  # imported before KUBECONFIG is set, as in most suites

WIDGET_CRD = {WIDGET_CRD!r}
WIDGET = {WIDGET!r}


def kubectl(*args, input=None):
    return subprocess.run(["kubectl", *args], input=input, capture_output=True, text=True, timeout=60)


def test_kubectl_uses_the_exported_kubeconfig(fakeapi, kubeconfig):
    assert os.environ["KUBECONFIG"] == str(kubeconfig)
    for manifest in (WIDGET_CRD, WIDGET):  # kubectl validates a custom resource only once its CRD is served
        applied = kubectl("apply", "-f", "-", input=manifest)
        assert applied.returncode == 0, applied.stderr
    assert fakeapi.get("widgets", "w1")["spec"] == {{"size": 3}}
    assert kubectl("get", "widgets", "-o", "name").stdout.split() == ["widget.example.com/w1"]


def test_kubectl_does_not_see_the_previous_tests_crd(fakeapi, kubeconfig):
    listed = kubectl("get", "widgets")
    assert listed.returncode != 0
    assert "the server doesn't have a resource type" in listed.stderr


def test_k8s_client(fakeapi, k8s_client):
    core = client.CoreV1Api(k8s_client)
    core.create_namespaced_config_map("default", {{"metadata": {{"name": "from-python"}}, "data": {{"k": "v"}}}})
    assert fakeapi.get("configmaps", "from-python")["data"] == {{"k": "v"}}
    events = watch.Watch().stream(core.list_namespaced_config_map, "default", timeout_seconds=5)
    assert next(events)["object"].metadata.name == "from-python"


def test_load_kube_config_in_process_finds_the_test_server(fakeapi, kubeconfig):
    config.load_kube_config()  # what in-process operators (kopf, plain-client reconcilers) call
    names = [ns.metadata.name for ns in client.CoreV1Api().list_namespace().items]
    assert "default" in names
'''


def test_subprocesses_and_the_python_client_reach_the_test_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    # A subprocess: the kubernetes client keeps process-wide state (its default configuration,
    # lazily imported model classes) that an in-process run would leave behind in this one.
    pytester.runpytest_subprocess().assert_outcomes(passed=4)
