"""fakeapi as several API processes over one store (``--workers``), and over a real etcd
(``--etcd-servers``): one real three-member etcd v3.6.6 cluster that survives losing a member, and
one etcd shared with the real kube-apiserver v1.35.4, each reading what the other wrote.

What holds across workers is what kube guarantees across apiservers: every write gets a distinct
revision and answers with the resourceVersion it was stored at, whichever worker took it; a read
(GET, consistent LIST) from any worker sees every write acknowledged before it; a watch from any
worker delivers every event once, in revision order; a CRD created through one worker is served
by all.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from fakeapi.etcd.client import RemoteStore
from fakeapi.cluster.control_plane import Etcd, EtcdCluster, KubeAPIServer, kube_binaries
from fakeapi.testing.server_process import ServerProcess

pytestmark = pytest.mark.etcd

WRITERS = 8
WRITES_PER_WRITER = 15

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.example.com"},
    "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
        }}}],
    },
}


@pytest.fixture(scope="module")
def binaries() -> None:
    kube_binaries("etcd")  # built by scripts/build-kube.sh (cached); a failed build fails here


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("workers"), "--workers", "2") as server:
        yield server


def _client(server: ServerProcess) -> httpx.Client:
    """A client with connections of its own: the kernel picks the worker of each."""
    return httpx.Client(base_url=server.url, timeout=30, verify=server.verify, headers=dict(server.http.headers))


def _configmap(name: str, value: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"value": value}}


def _watch(server: ServerProcess, path: str, rv: str, count: int, seen: list[dict[str, Any]]) -> None:
    with _client(server) as http, http.stream("GET", path, params={
        "watch": "1", "resourceVersion": rv, "timeoutSeconds": "60"}) as resp:
        for line in resp.iter_lines():
            if line:
                seen.append(json.loads(line))
                if len(seen) == count:
                    return


def test_two_workers_and_a_store_process_serve_one_port(workers: ServerProcess) -> None:
    supervisor = psutil.Process(workers.process.pid)
    children = supervisor.children()
    commands = [" ".join(child.cmdline()) for child in children]
    assert sum(" etcd " in c for c in commands) == 1 and sum(" serve " in c for c in commands) == 2, commands
    port = int(workers.url.rsplit(":", 1)[1])
    clients = [_client(workers) for _ in range(16)]
    try:
        for http in clients:
            assert http.get("/readyz").status_code == 200
        serving = {child.pid for child in children for conn in child.net_connections()
                   if conn.status == psutil.CONN_ESTABLISHED and conn.laddr.port == port}
        assert len(serving) == 2, "the kernel spread 16 connections over both workers"
    finally:
        for http in clients:
            http.close()
    namespaces = workers.http.get("/api/v1/namespaces").json()["items"]
    assert sorted(ns["metadata"]["name"] for ns in namespaces) == [
        "default", "kube-node-lease", "kube-public", "kube-system"]  # bootstrapped once, by worker 0


def test_concurrent_writes_through_both_workers(workers: ServerProcess) -> None:
    workers.http.post("/api/v1/namespaces", json={"metadata": {"name": "writes"}}).raise_for_status()
    start = workers.http.get("/api/v1/namespaces/writes/configmaps").json()["metadata"]["resourceVersion"]
    total = WRITERS * WRITES_PER_WRITER
    watched: list[list[dict[str, Any]]] = [[] for _ in range(4)]
    watchers = [threading.Thread(target=_watch, args=(workers, "/api/v1/namespaces/writes/configmaps", start,
                                                      total, seen)) for seen in watched]
    for thread in watchers:
        thread.start()

    def write(writer: int) -> list[tuple[str, str]]:
        answers = []
        with _client(workers) as http:
            for i in range(WRITES_PER_WRITER):
                resp = http.post("/api/v1/namespaces/writes/configmaps", json=_configmap(f"w{writer}-{i}", "x"))
                assert resp.status_code == 201, resp.text
                meta = resp.json()["metadata"]
                answers.append((meta["name"], meta["resourceVersion"]))
        return answers

    with concurrent.futures.ThreadPoolExecutor(WRITERS) as pool:
        answers = [a for batch in pool.map(write, range(WRITERS)) for a in batch]
    revisions = [int(rv) for _, rv in answers]
    assert len(set(revisions)) == total, "every write got a revision of its own"
    # Each answer carries the revision the object is stored at, as every worker reads it.
    for http in (_client(workers) for _ in range(4)):
        with http:
            listed = http.get("/api/v1/namespaces/writes/configmaps").json()
            assert {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in listed["items"]} == dict(answers)
            for name, rv in answers[::17]:
                assert http.get(f"/api/v1/namespaces/writes/configmaps/{name}").json()["metadata"][
                    "resourceVersion"] == rv
    for thread in watchers:
        thread.join(60)
    for seen in watched:
        assert [e["type"] for e in seen] == ["ADDED"] * total
        seen_revisions = [int(e["object"]["metadata"]["resourceVersion"]) for e in seen]
        assert seen_revisions == sorted(revisions), "every event once, in revision order"


def test_concurrent_patches_of_one_object_all_land(workers: ServerProcess) -> None:
    """Patches without a resourceVersion, many at once through both workers, of one ConfigMap:
    each worker's requests interleave at their store calls as the two workers' do, and a patch
    whose compare-and-swap found another write first starts again from it (kube's
    GuaranteedUpdate): every patch answers 200 and every key it added is kept."""
    workers.http.post("/api/v1/namespaces", json={"metadata": {"name": "patches"}})
    path = "/api/v1/namespaces/patches/configmaps"
    workers.http.post(path, json=_configmap("shared", "0")).raise_for_status()

    def patch(writer: int) -> list[int]:
        codes = []
        with _client(workers) as http:
            for i in range(WRITES_PER_WRITER):
                resp = http.patch(f"{path}/shared", json={"data": {f"w{writer}-{i}": "x"}},
                                  headers={"content-type": "application/merge-patch+json"})
                codes.append(resp.status_code)
        return codes

    with concurrent.futures.ThreadPoolExecutor(WRITERS) as pool:
        codes = [c for batch in pool.map(patch, range(WRITERS)) for c in batch]
    assert codes == [200] * WRITERS * WRITES_PER_WRITER
    data = workers.http.get(f"{path}/shared").json()["data"]
    assert set(data) == {"value"} | {f"w{w}-{i}" for w in range(WRITERS) for i in range(WRITES_PER_WRITER)}


def test_concurrent_deletes_and_patches_of_held_objects_all_land(workers: ServerProcess) -> None:
    """Deletes and patches at once, through both workers, of ConfigMaps a finalizer holds: a
    delete marks its object deleting with the same compare-and-swap as an update, and one that
    found another write first starts again from it (kube's ``conditionalDelete`` and
    ``GuaranteedUpdate``), as a namespace's or a CRD's does: every request answers 200, every
    object ends deleting with every label a patch added."""
    workers.http.post("/api/v1/namespaces", json={"metadata": {"name": "held"}})
    path = "/api/v1/namespaces/held/configmaps"
    names = [f"held-{k}" for k in range(4)]
    for name in names:
        body = _configmap(name, "0")
        body["metadata"]["finalizers"] = ["example.com/hold"]
        workers.http.post(path, json=body).raise_for_status()

    def write(writer: int) -> list[int]:
        codes = []
        with _client(workers) as http:
            for i, name in enumerate(names * WRITES_PER_WRITER):
                if writer % 2:
                    resp = http.delete(f"{path}/{name}")
                else:
                    resp = http.patch(f"{path}/{name}", json={"metadata": {"labels": {f"w{writer}-{i}": "x"}}},
                                      headers={"content-type": "application/merge-patch+json"})
                codes.append(resp.status_code)
        return codes

    with concurrent.futures.ThreadPoolExecutor(WRITERS) as pool:
        codes = [c for batch in pool.map(write, range(WRITERS)) for c in batch]
    assert codes == [200] * len(codes)
    for k, name in enumerate(names):
        meta = workers.http.get(f"{path}/{name}").json()["metadata"]
        assert meta.get("deletionTimestamp") and meta["finalizers"] == ["example.com/hold"]
        assert set(meta["labels"]) == {f"w{w}-{i}" for w in range(0, WRITERS, 2)
                                       for i in range(k, len(names) * WRITES_PER_WRITER, len(names))}
        workers.http.patch(f"{path}/{name}", json={"metadata": {"finalizers": None}},
                           headers={"content-type": "application/merge-patch+json"}).raise_for_status()


def test_a_crd_created_through_one_worker_is_served_by_all(workers: ServerProcess) -> None:
    workers.http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).raise_for_status()
    workers.http.post("/api/v1/namespaces", json={"metadata": {"name": "gadgets"}}).raise_for_status()
    path = "/apis/example.com/v1/namespaces/gadgets/gadgets"
    created = 0
    deadline = time.monotonic() + 10
    clients = [_client(workers) for _ in range(8)]
    try:
        pending = list(clients)
        while pending and time.monotonic() < deadline:  # served once the worker's cache saw the CRD
            http = pending.pop(0)
            body = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": f"g{created}"},
                    "spec": {"size": created}}
            resp = http.post(path, json=body)
            if resp.status_code == 404:
                pending.append(http)
                time.sleep(0.05)
                continue
            assert resp.status_code == 201, resp.text
            created += 1
        assert not pending, "every connection's worker serves the custom resource"
        for http in clients:
            assert len(http.get(path).json()["items"]) == created
    finally:
        for http in clients:
            http.close()


def test_a_token_one_worker_issues_every_worker_accepts(workers: ServerProcess) -> None:
    """Without --service-account-signing-key-file the supervisor gives the workers one key: each
    worker making its own, a token was refused by every worker but the one that issued it."""
    workers.http.post("/api/v1/namespaces/default/serviceaccounts",
                      json={"metadata": {"name": "across-workers"}}).raise_for_status()
    issued = workers.http.post("/api/v1/namespaces/default/serviceaccounts/across-workers/token",
                               json={"spec": {"expirationSeconds": 600}})
    assert issued.status_code == 201, issued.text
    review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
              "spec": {"token": issued.json()["status"]["token"]}}
    clients = [_client(workers) for _ in range(16)]  # all on one worker: 1 time in 2**15
    try:
        for http in clients:
            answer = http.post("/apis/authentication.k8s.io/v1/tokenreviews", json=review)
            assert answer.status_code == 201, answer.text
            status = answer.json()["status"]
            assert status.get("authenticated") is True, status
            assert status["user"]["username"] == "system:serviceaccount:default:across-workers"
    finally:
        for http in clients:
            http.close()


def test_fakeapi_over_a_three_member_etcd_cluster_survives_losing_a_member(binaries: None, tmp_path: Path) -> None:
    with EtcdCluster(tmp_path / "etcd") as cluster, ServerProcess(
            tmp_path, "--etcd-servers", ",".join(cluster.client_urls)) as server:
        http = server.http
        http.post("/api/v1/namespaces", json={"metadata": {"name": "ha"}}).raise_for_status()
        http.post("/api/v1/namespaces/ha/configmaps", json=_configmap("before", "1")).raise_for_status()
        rv = http.get("/api/v1/namespaces/ha/configmaps").json()["metadata"]["resourceVersion"]
        seen: list[dict[str, Any]] = []
        watcher = threading.Thread(target=_watch, args=(server, "/api/v1/namespaces/ha/configmaps", rv, 1, seen))
        watcher.start()
        cluster.members[0].stop()  # the member gRPC picked first
        deadline = time.monotonic() + 30
        while True:
            resp = http.post("/api/v1/namespaces/ha/configmaps", json=_configmap("after", "2"))
            if resp.status_code == 201 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert resp.status_code == 201, resp.text
        names = [o["metadata"]["name"] for o in http.get("/api/v1/namespaces/ha/configmaps").json()["items"]]
        assert names == ["after", "before"]
        watcher.join(30)
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in seen] == [("ADDED", "after")]


def test_fakeapi_and_kube_apiserver_share_one_etcd(binaries: None, tmp_path: Path) -> None:
    """Each reads what the other wrote: kube decodes fakeapi's JSON; fakeapi reads kube's when
    kube stores JSON (``--storage-media-type``; kube's default, protobuf, fakeapi does not read)."""
    with Etcd(tmp_path / "etcd") as etcd, ServerProcess(tmp_path, "--etcd-servers", etcd.client_url) as fake, \
            KubeAPIServer(tmp_path / "kube", etcd.client_url, "--storage-media-type=application/json") as kube:
        fake.http.post("/api/v1/namespaces", json={"metadata": {"name": "shared"}}).raise_for_status()
        written = fake.http.post("/api/v1/namespaces/shared/configmaps", json=_configmap("by-fakeapi", "f")).json()
        read = kube.http.get("/api/v1/namespaces/shared/configmaps/by-fakeapi").json()
        assert read["data"] == {"value": "f"}
        for field in ("uid", "resourceVersion", "creationTimestamp"):
            assert read["metadata"][field] == written["metadata"][field]
        by_kube = kube.http.post("/api/v1/namespaces/shared/configmaps", json=_configmap("by-kube", "k"))
        assert by_kube.status_code == 201, by_kube.text
        kube_meta = by_kube.json()["metadata"]
        got = fake.http.get("/api/v1/namespaces/shared/configmaps/by-kube").json()
        assert got["data"] == {"value": "k"}
        assert got["metadata"]["resourceVersion"] == kube_meta["resourceVersion"]  # set from mod_revision
        assert got["metadata"]["uid"] == kube_meta["uid"]
        deadline = time.monotonic() + 10  # fakeapi's watch cache follows kube's write too
        while time.monotonic() < deadline:
            listed = fake.http.get("/api/v1/namespaces/shared/configmaps", params={"resourceVersion": "0"}).json()
            if len(listed["items"]) == 2:
                break
            time.sleep(0.1)
        assert {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in listed["items"]} == {
            "by-fakeapi": written["metadata"]["resourceVersion"], "by-kube": kube_meta["resourceVersion"]}



def test_api_servers_starting_together_on_one_etcd_bootstrap_it_once(binaries: None, tmp_path: Path) -> None:
    """Both create the default namespaces and kube-apiserver's bootstrap objects, as two
    kube-apiservers coming up on a fresh etcd do: each object is written by one of them only (the
    other finds it, or its create-only txn fails and it retries what is still missing)."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    with Etcd(tmp_path / "etcd") as etcd, concurrent.futures.ThreadPoolExecutor(2) as pool:
        starting = [pool.submit(ServerProcess, tmp_path / name, "--etcd-servers", etcd.client_url)
                    for name in ("a", "b")]
        servers = [future.result() for future in starting]
        store = RemoteStore([etcd.client_url])
        try:
            for path, key in (("/api/v1/namespaces/default", "/registry/namespaces/default"),
                              ("/api/v1/namespaces/kube-node-lease", "/registry/namespaces/kube-node-lease"),
                              ("/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin",
                               "/registry/clusterroles/cluster-admin"),
                              ("/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical",
                               "/registry/priorityclasses/system-node-critical")):
                metas = [server.http.get(path).raise_for_status().json()["metadata"] for server in servers]
                assert metas[0]["uid"] == metas[1]["uid"], path
                stored = store.get(key.encode())
                assert stored is not None and stored.version == 1, path  # created, never overwritten
        finally:
            asyncio.run(store.aclose())
            for server in servers:
                server.stop()
