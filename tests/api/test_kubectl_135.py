"""kubectl v1.35.4 (built by scripts/build-kube.sh, whatever kubectl the PATH holds) against a
real fakeapi: its generator commands send protobuf and, unlike older kubectls, ask for protobuf
back (``Accept: application/vnd.kubernetes.protobuf,application/json``), which it decodes into
what it prints; its discovery is aggregated (``apidiscovery.k8s.io/v2``); errors reach it as
protobuf Status."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fakeapi.cluster.control_plane import kubectl_binary

PROTOBUF = "application/vnd.kubernetes.protobuf"


@pytest.fixture(scope="module")
def kubectl_135() -> Path:
    binary = kubectl_binary()
    version = subprocess.run([str(binary), "version", "--client", "-o", "json"], capture_output=True, text=True)
    assert json.loads(version.stdout)["clientVersion"]["gitVersion"] == "v1.35.4"
    return binary


def run(kubectl: Path, env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(kubectl), *args], env=env, capture_output=True, text=True, timeout=60)
    if check:
        assert proc.returncode == 0, f"kubectl {' '.join(args)}: {proc.stderr[-2000:]}"
    return proc


def exchanges(log: str) -> list[dict[str, str]]:
    """Each request kubectl -v=8 logged: its verb, URL, Accept, and the response's status and Content-Type."""
    found = []
    for block in re.split(r'(?="Request" verb=)', log)[1:]:
        request = re.match(r'"Request" verb="(\w+)" url="([^"]+)"', block)
        accept = re.search(r"\n\s*Accept: ([^\n]+)", block)
        status = re.search(r'"Response" status="([^"]+)"', block)
        content_type = re.search(r'"Response".*?\n\s*Content-Type: ([^\n]+)', block, re.DOTALL)
        assert request and status, block[:500]
        found.append({"verb": request[1], "url": request[2], "accept": accept[1] if accept else "",
                      "status": status[1], "contentType": content_type[1] if content_type else ""})
    return found


GENERATORS = [
    ("configmap", ["configmap", "k135-cm", "--from-literal=a=b"]),
    ("secret", ["secret", "generic", "k135-secret", "--from-literal=password=s3cr3t"]),
    ("deployment", ["deployment", "k135-web", "--image=nginx", "--replicas=2", "--port=80"]),
    ("job", ["job", "k135-job", "--image=busybox", "--", "echo", "hi"]),
    ("service", ["service", "clusterip", "k135-svc", "--tcp=80:8080"]),
    ("serviceaccount", ["serviceaccount", "k135-sa"]),
    ("priorityclass", ["priorityclass", "k135-pc", "--value=1000", "--description=d"]),
    ("poddisruptionbudget", ["poddisruptionbudget", "k135-pdb", "--selector=app=web", "--min-available=50%"]),
    ("quota", ["quota", "k135-quota", "--hard=cpu=1,memory=1G,pods=2"]),
]


@pytest.mark.parametrize(("resource", "args"), GENERATORS, ids=[g[0] for g in GENERATORS])
def test_created_objects_come_back_in_protobuf_and_print_as_stored(kubectl_135, kubectl_env, server, resource, args):
    created = run(kubectl_135, kubectl_env, "create", "-o", "json", "-v=8", *args)
    [post] = [e for e in exchanges(created.stderr) if e["verb"] == "POST"]
    assert post["accept"] == f"{PROTOBUF},application/json" and post["status"] == "201 Created"
    assert post["contentType"] == PROTOBUF
    printed: dict[str, Any] = json.loads(created.stdout)  # what kubectl decoded from our protobuf
    path = post["url"].split("?")[0].removeprefix(server.url)
    stored = server.http.get(f"{path}/{printed['metadata']['name']}").json()
    assert printed["metadata"]["uid"] == stored["metadata"]["uid"]
    assert printed["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    for field in ("spec", "data", "value"):
        if field in stored:
            assert without_nulls(printed[field]) == without_nulls(stored[field]), field


def without_nulls(value: Any) -> Any:
    """Go prints a struct's zero fields the stored JSON may leave out (``resources: {}``,
    ``creationTimestamp: null``): compare what both say."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def test_discovery_is_aggregated(kubectl_135, kubectl_env, tmp_path):
    env = dict(kubectl_env, KUBECACHEDIR=str(tmp_path))  # no cached discovery
    listed = run(kubectl_135, env, "api-resources", "-v=8")
    assert re.search(r"^deployments\s+deploy\s+apps/v1\s+true\s+Deployment$", listed.stdout, re.MULTILINE)
    calls = exchanges(listed.stderr)
    assert [c["url"].split("/", 3)[3].split("?")[0] for c in calls] == ["api", "apis"]  # no per-group-version GETs
    for call in calls:
        assert call["accept"].startswith("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
        assert call["contentType"] == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def test_create_only_answers_and_errors_arrive_in_protobuf(kubectl_135, kubectl_env):
    """``create token`` POSTs a TokenRequest asking for protobuf: the token comes back as one, and
    a missing service account as a protobuf Status."""
    missing = run(kubectl_135, kubectl_env, "create", "token", "k135-nobody", "-v=8", check=False)
    assert missing.returncode != 0
    [post] = [e for e in exchanges(missing.stderr) if e["verb"] == "POST"]
    assert (post["status"], post["contentType"]) == ("404 Not Found", PROTOBUF)
    assert 'serviceaccounts "k135-nobody" not found' in missing.stderr
    run(kubectl_135, kubectl_env, "create", "serviceaccount", "k135-token")
    issued = run(kubectl_135, kubectl_env, "create", "token", "k135-token", "-v=8")
    [post] = [e for e in exchanges(issued.stderr) if e["verb"] == "POST"]
    assert (post["status"], post["contentType"]) == ("201 Created", PROTOBUF)
    assert issued.stdout.count(".") == 2  # a JWT, decoded from the TokenRequest's status


def test_writes_by_patch_and_scale(kubectl_135, kubectl_env):
    run(kubectl_135, kubectl_env, "create", "deployment", "k135-scaled", "--image=nginx")
    run(kubectl_135, kubectl_env, "scale", "deployment", "k135-scaled", "--replicas=3")
    run(kubectl_135, kubectl_env, "label", "deployment", "k135-scaled", "tier=web")
    shown = json.loads(run(kubectl_135, kubectl_env, "get", "deployment", "k135-scaled", "-o", "json").stdout)
    assert (shown["spec"]["replicas"], shown["metadata"]["labels"]["tier"]) == (3, "web")
