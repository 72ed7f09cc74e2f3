"""``fakeapi etcd --data-dir``: the store served over etcd's gRPC API survives kill -9 like an etcd
member with its data directory (an etcd client, aetcd, before and after)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import aetcd

from fakeapi.testing.etcd import FakeEtcdProcess


def _endpoint(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


async def _before(url: str) -> tuple[int, int]:
    """Writes, a compaction and a leased key; returns (revision, lease id)."""
    async with aetcd.Client(*_endpoint(url)) as client:
        for i in range(5):
            await client.put(b"/app/k", b"v%d" % i)
        await client.compact(4)
        lease = await client.lease(600)
        put = await client.put(b"/app/leased", b"x", lease=lease)
        return put.header.revision, lease.id


async def _after(url: str, revision: int, lease_id: int) -> None:
    async with aetcd.Client(*_endpoint(url)) as client:
        got = await client.get(b"/app/k")
        assert (got.value, got.version, got.mod_revision) == (b"v4", 5, 6)
        info = await client.get_lease_info(lease_id)
        assert info.keys == [b"/app/leased"] and 590 <= info.TTL <= 600
        # A watch from the compaction point still replays what followed it.
        events = []
        async for event in await client.watch(b"/app/k", start_revision=4):
            events.append(event.kv.value)
            if len(events) == 3:
                break
        assert events == [b"v2", b"v3", b"v4"]
        put = await client.put(b"/app/after", b"y")
        assert put.header.revision == revision + 1


def test_fakeapi_etcd_keeps_its_store_across_kill_9(tmp_path: Path) -> None:
    data_dir = tmp_path / "member"
    with FakeEtcdProcess(["--data-dir", str(data_dir), "--fsync", "always"]) as etcd:
        revision, lease_id = asyncio.run(asyncio.wait_for(_before(etcd.client_url), 30))
        assert etcd.process is not None
        etcd.process.send_signal(signal.SIGKILL)
        etcd.process.wait(10)
    with FakeEtcdProcess(["--data-dir", str(data_dir)]) as etcd:
        asyncio.run(asyncio.wait_for(_after(etcd.client_url, revision, lease_id), 30))
