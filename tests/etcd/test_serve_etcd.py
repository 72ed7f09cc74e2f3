"""``fakeapi serve --etcd-listen-client-urls``: the API server's own store, served over etcd's
gRPC API as well. What the API writes, etcdctl reads under kube's key layout (at the
resourceVersion the API answered), and an etcd watch sees the API's next write."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import grpc

from fakeapi.etcd.pb import rpc_pb2, rpc_pb2_grpc
from fakeapi.testing import ServerProcess


def test_serve_exposes_its_store_over_etcd(tmp_path: Path, etcd_bin: Path) -> None:
    with ServerProcess(tmp_path, "--etcd-listen-client-urls", "http://127.0.0.1:0") as server:
        (url,) = server.etcd_urls
        etcdctl = [str(etcd_bin / "etcdctl"), "--endpoints", url]
        created = server.http.post("/api/v1/namespaces/default/configmaps",
                                   json={"metadata": {"name": "cm1"}, "data": {"a": "1"}})
        assert created.status_code == 201, created.text
        got = subprocess.run([*etcdctl, "get", "/registry/configmaps/default/cm1", "-w", "json"],
                             capture_output=True, text=True, check=True, timeout=30)
        (kv,) = json.loads(got.stdout)["kvs"]
        assert kv["mod_revision"] == int(created.json()["metadata"]["resourceVersion"])

        # An etcd watch over gRPC sees the API's next write.
        channel = grpc.insecure_channel(url.removeprefix("http://"))
        try:
            create = rpc_pb2.WatchCreateRequest(key=b"/registry/configmaps/",
                                                range_end=b"/registry/configmaps0")
            responses = rpc_pb2_grpc.WatchStub(channel).Watch(
                iter([rpc_pb2.WatchRequest(create_request=create)]), timeout=30)
            assert next(responses).created
            updated = server.http.put("/api/v1/namespaces/default/configmaps/cm1",
                                      json={"metadata": {"name": "cm1"}, "data": {"a": "2"}})
            assert updated.status_code == 200, updated.text
            (event,) = next(responses).events
            assert event.kv.key == b"/registry/configmaps/default/cm1"
            assert event.kv.mod_revision == int(updated.json()["metadata"]["resourceVersion"])
            responses.cancel()
        finally:
            channel.close()
