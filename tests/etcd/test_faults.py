"""Faults at the etcd level (``fakeapi/etcd/faults.py``): from ``fakeapi etcd --fault`` (etcdctl
sees etcd's own errors), and through the faults API of ``fakeapi serve
--etcd-listen-client-urls`` (errors, slow requests, watch streams dropped as on a lost leader,
forced compaction), seen by a gRPC client."""

from __future__ import annotations

import subprocess
from pathlib import Path

import grpc
import pytest

from fakeapi.etcd.pb import rpc_pb2, rpc_pb2_grpc
from fakeapi.testing import ServerProcess
from fakeapi.testing.etcd import FakeEtcdProcess


def test_fakeapi_etcd_fault_flag(etcd_bin: Path) -> None:
    with FakeEtcdProcess(["--fault", "etcd-error:error=timeout,method=put,count=1",
                          "--fault", "etcd-error:error=too-many-requests,prefix=busy/"]) as etcd:
        etcdctl = [str(etcd_bin / "etcdctl"), "--endpoints", etcd.client_url]

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([*etcdctl, *args], capture_output=True, text=True, timeout=30)

        first = run("put", "a", "1")
        assert first.returncode != 0 and "etcdserver: request timed out" in first.stderr
        assert run("get", "a").stdout == ""  # the failed put changed nothing
        assert run("put", "a", "1").stdout.strip() == "OK"  # count=1: spent
        busy = run("get", "busy/x")
        assert busy.returncode != 0 and "etcdserver: too many requests" in busy.stderr
        assert run("get", "a").stdout.split() == ["a", "1"]


def test_etcd_faults_through_the_faults_api(tmp_path: Path) -> None:
    with ServerProcess(tmp_path, "--etcd-listen-client-urls", "http://127.0.0.1:0") as server:
        channel = grpc.insecure_channel(server.etcd_urls[0].removeprefix("http://"))
        kv = rpc_pb2_grpc.KVStub(channel)
        try:
            added = server.http.post("/fakeapi/v1/faults", json={
                "type": "etcd-error", "error": "leader-changed", "method": "write", "count": 1})
            assert added.status_code == 201, added.text
            with pytest.raises(grpc.RpcError) as failed:
                kv.Put(rpc_pb2.PutRequest(key=b"k", value=b"v"), timeout=10)
            assert failed.value.code() is grpc.StatusCode.UNAVAILABLE
            assert failed.value.details() == "etcdserver: leader changed"
            first = kv.Put(rpc_pb2.PutRequest(key=b"k", value=b"v"), timeout=10).header.revision
            listed = server.faults()
            assert [(f["type"], f["fired"], f["active"]) for f in listed["faults"]] == [("etcd-error", 1, False)]

            slow = server.http.post("/fakeapi/v1/faults/etcd-latency", json={"seconds": 0.05, "method": "range"})
            assert slow.status_code == 201, slow.text
            assert kv.Range(rpc_pb2.RangeRequest(key=b"k"), timeout=10).kvs[0].value == b"v"
            assert server.http.delete(f"/fakeapi/v1/faults/{slow.json()['id']}").json() == {"cleared": 1}

            # A watch stream dropped as on a lost leader; the client re-watches from its revision.
            create = rpc_pb2.WatchCreateRequest(key=b"k", start_revision=first)
            stream = rpc_pb2_grpc.WatchStub(channel).Watch(
                iter([rpc_pb2.WatchRequest(create_request=create)]), timeout=30)
            assert next(stream).created
            assert [ev.kv.mod_revision for ev in next(stream).events] == [first]
            dropped = server.http.post("/fakeapi/v1/faults/etcd-drop-watches")
            assert dropped.json() == {"closed": 1}
            with pytest.raises(grpc.RpcError) as ended:
                next(stream)
            assert (ended.value.code(), ended.value.details()) == (
                grpc.StatusCode.UNAVAILABLE, "etcdserver: no leader")

            compacted = server.http.post("/fakeapi/v1/faults/etcd-compact", json={"revision": first})
            assert compacted.json() == {"revision": first}
            with pytest.raises(grpc.RpcError) as old:
                kv.Range(rpc_pb2.RangeRequest(key=b"k", revision=first - 1), timeout=10)
            assert old.value.details() == "etcdserver: mvcc: required revision has been compacted"
            assert server.http.delete("/fakeapi/v1/faults").json() == {"cleared": 1}
        finally:
            channel.close()


def test_etcd_faults_need_the_grpc_server(tmp_path: Path) -> None:
    with ServerProcess(tmp_path) as server:
        refused = server.http.post("/fakeapi/v1/faults/etcd-compact")
        assert refused.status_code == 400
        assert "--etcd-listen-client-urls" in refused.json()["message"]
