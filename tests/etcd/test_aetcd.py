"""aetcd (a maintained asyncio etcd v3 client over grpcio) against ``fakeapi etcd``: keys,
prefixes, transactions, leases, watches (events, prev_kv, a watch from a compacted revision),
compaction, a lock (leases + txn + watch), status, members and hash."""

from __future__ import annotations

import asyncio

import aetcd
import pytest


def _endpoint(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def test_aetcd_client(fake_etcd: str) -> None:
    host, port = _endpoint(fake_etcd)
    asyncio.run(asyncio.wait_for(_scenario(host, port), timeout=60))


async def _scenario(host: str, port: int) -> None:
    async with aetcd.Client(host=host, port=port) as client:
        put = await client.put(b"/app/a", b"1")
        assert put.header.revision == 2
        await client.put(b"/app/b", b"2")
        got = await client.get(b"/app/a")
        assert (got.value, got.version, got.create_revision) == (b"1", 1, 2)
        assert [kv.key for kv in await client.get_prefix(b"/app/")] == [b"/app/a", b"/app/b"]

        tx = client.transactions
        ok, responses = await client.transaction(
            compare=[tx.value(b"/app/a") == b"1", tx.version(b"/app/b") > 0],
            success=[tx.put(b"/app/a", b"11"), tx.get(b"/app/b")],
            failure=[tx.delete(b"/app/a")],
        )
        assert ok and responses[1][0][0] == b"2"  # a range in a txn: [(value, kv)]
        assert (await client.get(b"/app/a")).value == b"11"
        assert await client.replace(b"/app/a", b"wrong", b"x") is False

        lease = await client.lease(60)
        await client.put(b"/app/leased", b"v", lease=lease)
        info = await client.get_lease_info(lease.id)
        assert info.keys == [b"/app/leased"] and 0 < info.TTL <= 60 and info.grantedTTL == 60
        await lease.revoke()
        assert await client.get(b"/app/leased") is None

        watch = await client.watch(b"/app/", range_end=b"/app0", prev_kv=True)
        await client.put(b"/app/b", b"3")
        await client.delete(b"/app/a")
        events = []
        async for event in watch:
            events.append((event.kind, event.kv.key, event.prev_kv.value if event.prev_kv else None))
            if len(events) == 2:
                break
        await watch.cancel()
        assert events == [("PUT", b"/app/b", b"2"), ("DELETE", b"/app/a", b"11")]

        revision = (await client.put(b"/app/c", b"1")).header.revision
        await client.compact(revision, physical=True)
        with pytest.raises(aetcd.RevisionCompactedError) as compacted:
            old = await client.watch(b"/app/c", start_revision=2)
            async for _event in old:
                pass
        assert compacted.value.compacted_revision == revision

        async with client.lock(b"/locks/one", ttl=10) as lock:
            assert await lock.is_acquired()

        status = await client.status()
        members = [m async for m in client.members()]
        assert len(members) == 1
        assert status.version == "3.6.6" and status.leader.id == members[0].id
        assert status.raft_term == 2
        assert (await client.hash()) != 0
