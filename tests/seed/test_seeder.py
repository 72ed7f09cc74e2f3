"""The seeder: deterministic plans, body sizes, owner references that point at real owners,
and the same cluster whether written at start-up or through the API."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from fakeapi.seed import seeder
from fakeapi.testing import ServerProcess

SPEC = seeder.parse_spec("namespaces=3,nodes=4,pods=40,deployments=4,statefulsets=2,revisions=3,"
                       "configmaps=5,configmap-bytes=3000,secrets=3,secret-bytes=600,seed=7")
#: Collection paths of everything the seeder writes.
COLLECTIONS = ("/api/v1/namespaces", "/api/v1/serviceaccounts", "/api/v1/nodes", "/apis/coordination.k8s.io/v1/leases", "/api/v1/pods",
               "/apis/apps/v1/deployments", "/apis/apps/v1/replicasets", "/apis/apps/v1/statefulsets",
               "/apis/apps/v1/controllerrevisions", "/api/v1/configmaps", "/api/v1/secrets")
#: Server-assigned on every write, so they differ between two servers.
SERVER_OWNED = ("uid", "resourceVersion", "creationTimestamp", "managedFields")


def _bodies(the_plan: seeder.Plan) -> list[bytes]:
    return [orjson.dumps(o.stored_body()) for o in the_plan.objects()]


def test_same_seed_same_objects() -> None:
    assert _bodies(seeder.plan(SPEC)) == _bodies(seeder.plan(SPEC))
    assert _bodies(seeder.plan(SPEC)) != _bodies(seeder.plan(replace(SPEC, seed=8)))


def test_spec_string_and_file(tmp_path: Path) -> None:
    assert seeder.parse_spec(str(SPEC)) == SPEC
    path = tmp_path / "cluster.yaml"
    path.write_text("namespaces: 3\npods: 40\nconfigmap-bytes: 3000\n")
    assert seeder.parse_spec(str(path)) == seeder.SeedSpec(namespaces=3, pods=40, configmap_bytes=3000)
    with pytest.raises(ValueError, match="unknown seed spec key"):
        seeder.parse_spec("pods=1,widgets=2")


def test_plan_counts() -> None:
    the_plan = seeder.plan(SPEC)
    kinds: dict[str, int] = {}
    for obj in the_plan.objects():
        kinds[obj.plural] = kinds.get(obj.plural, 0) + 1
    assert kinds == {"namespaces": 3, "serviceaccounts": 3, "nodes": 4, "leases": 4, "pods": 40, "deployments": 4, "replicasets": 4,
                     "statefulsets": 2, "controllerrevisions": 6, "configmaps": 5, "secrets": 3}


def _list(server: ServerProcess, path: str) -> list[dict[str, Any]]:
    """The items of a LIST, each with the kind its list names (kube's list items carry none)."""
    resp = server.http.get(path)
    resp.raise_for_status()
    listed = resp.json()
    kind = listed["kind"].removesuffix("List")
    return [{"kind": kind, **item} for item in listed["items"]]


def _cluster(server: ServerProcess) -> dict[str, list[dict[str, Any]]]:
    """Everything seeded, without server-assigned fields; owner uids become owner names."""
    out = {}
    for path in COLLECTIONS:
        items = []
        for obj in _list(server, path):
            meta = obj["metadata"]
            if not (meta.get("namespace") or meta["name"]).startswith("ns-") and path.endswith(("namespaces", "accounts")):
                continue  # the server's own (default, kube-system, ...) and theirs
            for field in SERVER_OWNED:
                meta.pop(field, None)
            for ref in meta.get("ownerReferences", ()):
                ref.pop("uid")
            items.append(obj)
        out[path] = sorted(items, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
    return out


@pytest.fixture(scope="module")
def seeded_at_startup(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    with ServerProcess(tmp_path_factory.mktemp("startup"), "--seed", str(SPEC)) as server:
        yield server


def test_owner_references_point_at_their_owners(seeded_at_startup: ServerProcess) -> None:
    uids = {}
    for path in COLLECTIONS:
        for obj in _list(seeded_at_startup, path):
            meta = obj["metadata"]
            uids[(obj["kind"], meta.get("namespace"), meta["name"])] = meta["uid"]
    owned = 0
    for path in COLLECTIONS:
        for obj in _list(seeded_at_startup, path):
            for ref in obj["metadata"].get("ownerReferences", ()):
                namespace = obj["metadata"].get("namespace") if ref["kind"] != "Node" else None
                assert uids[(ref["kind"], namespace, ref["name"])] == ref["uid"]
                owned += 1
    assert owned == 4 + 4 + 6 + 40  # leases, replicasets, revisions, pods
    pods = _list(seeded_at_startup, "/api/v1/pods")
    assert all(p["status"]["phase"] == "Running" and p["status"]["podIP"] for p in pods)
    workloads = _list(seeded_at_startup, "/apis/apps/v1/deployments") + _list(seeded_at_startup, "/apis/apps/v1/statefulsets")
    assert sum(w["spec"]["replicas"] for w in workloads) == len(pods) == 40


def test_body_sizes(seeded_at_startup: ServerProcess) -> None:
    """Pods as stored (server metadata, kube's defaults and status included) are 2-4.5 KB;
    configmaps and secrets carry the data size asked for."""
    for pod in _list(seeded_at_startup, "/api/v1/pods"):
        assert 2048 <= len(orjson.dumps(pod)) <= 4608, pod["metadata"]["name"]
    for cm in _list(seeded_at_startup, "/api/v1/configmaps"):
        if cm["metadata"]["name"].startswith("config-"):
            assert sum(map(len, cm["data"].values())) == 3000
    for secret in _list(seeded_at_startup, "/api/v1/secrets"):
        assert abs(len(secret["data"]["token"]) - 600) <= 4


def test_http_path_writes_the_same_cluster(seeded_at_startup: ServerProcess, tmp_path: Path) -> None:
    # Two 429s on pod creates first: the seeder waits Retry-After and goes on.
    with ServerProcess(tmp_path, "--fault", "error:verb=create,resource=pods,code=429,count=2,retryAfter=1") as server:
        result = asyncio.run(seeder.seed_over_http(server.url, SPEC, concurrency=8))
        assert result.objects == len(seeder.plan(SPEC))
        assert _cluster(server) == _cluster(seeded_at_startup)


def test_seeds_under_kubes_service_account_admission(tmp_path: Path) -> None:
    """With the ServiceAccount plugin on (kube's default), pods need their namespace's default
    ServiceAccount: the seeder makes it first, and keeps one a controller made before it."""
    spec = seeder.parse_spec("namespaces=2,pods=4,deployments=1,seed=3")
    with ServerProcess(tmp_path / "startup", "--seed", str(spec), "--enable-admission-plugins", "ServiceAccount") as server:
        pods = _list(server, "/api/v1/pods")
        assert len(pods) == 4 and all(p["spec"]["serviceAccountName"] == "default" for p in pods)
    with ServerProcess(tmp_path / "http", "--enable-admission-plugins", "ServiceAccount") as server:
        result = asyncio.run(seeder.seed_over_http(server.url, spec, concurrency=4))
        assert result.objects == len(seeder.plan(spec))
        assert len(_list(server, "/api/v1/pods")) == 4
        made_first = server.http.get("/api/v1/namespaces/ns-0/serviceaccounts/default").json()

        async def create_again(may_exist: bool) -> dict[str, Any] | None:
            import httpx

            account = seeder.SeedObject("", "v1", "serviceaccounts", {"metadata": {"name": "default", "namespace": "ns-0"}},
                                        may_exist=may_exist)
            async with httpx.AsyncClient(base_url=server.url) as client:
                return await seeder.HttpWriter(client).create(account)

        assert asyncio.run(create_again(may_exist=True)) is None
        with pytest.raises(seeder.SeedError, match='409 serviceaccounts "default" already exists'):
            asyncio.run(create_again(may_exist=False))
        assert server.http.get("/api/v1/namespaces/ns-0/serviceaccounts/default").json() == made_first
