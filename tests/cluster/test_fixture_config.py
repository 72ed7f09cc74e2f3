"""``fakeapi_cluster`` as a user's test suite gets it from the installed plugin, configured by
overriding ``fakeapi_cluster_config``: here with kwok's ``pod/general`` stages (pods go through
creation, init containers and readiness with kwok's delays, recording Events) instead of the fast
ones."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from fakeapi.cluster.control_plane import kube_binaries

USER_TESTS = '''
import pytest


@pytest.fixture(scope="session")
def fakeapi_cluster_config():
    return {"nodes": 2, "stages": ("node/fast", "node/heartbeat-with-lease", "pod/general")}


def test_pods_start_with_the_general_stages(fakeapi_cluster):
    assert len(fakeapi_cluster.nodes) == 2
    fakeapi_cluster.apply("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: slow, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: slow}}
  template:
    metadata: {labels: {app: slow}}
    spec:
      initContainers: [{name: setup, image: busybox}]
      containers: [{name: app, image: nginx}]
""")
    fakeapi_cluster.wait_for_rollout("deployments.apps", "slow", "default", timeout=90)
    pods = fakeapi_cluster.list("pods", "default", label_selector="app=slow")
    assert all(pod["status"]["initContainerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"
               for pod in pods)
    # pod/general's stages record what a kubelet would; pod/fast records nothing.
    reasons = {event["reason"] for event in fakeapi_cluster.list("events", "default")
               if event["involvedObject"]["kind"] == "Pod"}
    assert {"Scheduled", "Created"} <= reasons, reasons
'''


@pytest.fixture(scope="module")
def _users_binaries() -> Iterator[None]:
    """pytester points HOME at its own folder: the user's suite gets the binaries built here and
    Go's caches (a stale binary is rebuilt in seconds, not from nothing in a new HOME). Module
    scope: set up before pytester, under the real HOME."""
    binaries = kube_binaries("kube-controller-manager", "kube-scheduler", "kwok")
    go = shutil.which("go", path=os.pathsep.join((os.environ.get("PATH", ""), "/usr/local/go/bin")))
    assert go, "Go is missing (scripts/ensure-test-deps.sh installs it)"
    names = ("GOCACHE", "GOMODCACHE", "GOPATH")
    values = subprocess.run([go, "env", *names], check=True, capture_output=True, text=True).stdout.split("\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FAKEAPI_KUBE_BIN", str(binaries))
        for name, value in zip(names, values, strict=False):
            patch.setenv(name, value)
        yield


@pytest.mark.usefixtures("_users_binaries")
def test_the_fixture_takes_its_config_from_an_overridden_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", timeout=300)
    result.assert_outcomes(passed=1)
