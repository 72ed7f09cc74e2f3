"""``fakeapi etcd``: a store served over etcd's v3 gRPC API only."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import Any

from ..faults.engine import parse_cli_spec
from ..machinery.golang import parse_duration
from ..runtime import settle_heap
from ..store import CorruptLog, DataDirInUse, FsyncPolicy, Journal, SnapshotError, Store
from .arguments import add_persistence_args, positive_int


def _etcd_fault(text: str) -> dict[str, object]:
    from ..etcd import faults as etcd_faults

    try:
        spec = parse_cli_spec(text)
        if spec["type"] not in ("etcd-error", "etcd-latency"):
            raise ValueError("only etcd-error and etcd-latency can be given at start")
        kind, kwargs = etcd_faults.parse_spec(spec)
        etcd_faults.EtcdFault("check", kind, **kwargs)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text}: {err}") from None
    return spec


async def serve_etcd(args: argparse.Namespace) -> None:
    """``fakeapi etcd``: a store served over etcd's gRPC API only (fresh, or kept in --data-dir)."""
    from ..etcd import EtcdServer
    from ..store import StoreTimers

    store = Store()
    journal = None
    if args.data_dir is not None:
        try:
            journal = Journal.open(store, args.data_dir, policy=FsyncPolicy(args.fsync),
                                   interval=parse_duration(args.fsync_interval))
        except (DataDirInUse, SnapshotError, CorruptLog) as err:
            raise SystemExit(f"fakeapi etcd: {err}") from None
    timers = StoreTimers(store, progress_interval=parse_duration(args.watch_progress_notify_interval))
    timers.start()
    server = EtcdServer(store, max_request_bytes=args.max_request_bytes, name=args.name)
    for spec in args.fault:
        server.faults.apply(spec)
    try:
        urls = await server.start(args.listen_client_urls.split(","))
        if args.listen_socket:
            await server.serve_framed(args.listen_socket)
    except (ValueError, RuntimeError, OSError) as err:
        raise SystemExit(f"fakeapi etcd: {err}") from None
    settle_heap()
    print(f"fakeapi etcd: serving etcd v3 gRPC on {', '.join(urls)}", flush=True)
    try:
        await server.wait_closed()
    finally:
        await server.stop(None)
        await timers.stop()
        if journal is not None:
            journal.close()


def add_parser(sub: Any) -> None:
    e = sub.add_parser("etcd", help="serve an empty in-memory store over etcd's v3 gRPC API")
    e.add_argument("--listen-client-urls", default="http://127.0.0.1:2379",
                   help="comma-separated http://HOST:PORT to serve on (default http://127.0.0.1:2379; port 0 picks one)")
    e.add_argument("--max-request-bytes", type=positive_int, default=1536 * 1024,
                   help="the largest write request accepted, as etcd's flag (default 1572864)")
    e.add_argument("--watch-progress-notify-interval", default="10m",
                   help="progress notifications to watches that asked for them (default 10m, as etcd)")
    e.add_argument("--name", default="default", help="the member's name (default 'default')")
    e.add_argument("--listen-socket", metavar="PATH",
                   help="also answer the KV and Lease calls and the Watch streams of fakeapi's API workers on this "
                        "machine on a Unix socket, framed as fakeapi frames them (not an etcd API; `serve --workers` "
                        "uses it)")
    e.add_argument("--fault", action="append", type=_etcd_fault, default=[], metavar="TYPE:KEY=VALUE,...",
                   help="an etcd-level fault in force from the start, repeatable: etcd-error:error=timeout|"
                        "leader-changed|no-leader|too-many-requests or etcd-latency:seconds=S, with "
                        "method=range|put|delete_range|txn|compact|lease_grant|lease_revoke|read|write, "
                        "prefix=KEY, count=N or rate=P (seed=N); e.g. --fault etcd-latency:seconds=0.05,method=write")
    e.add_argument("--log-level", default="warning")
    add_persistence_args(e)


def run(args: argparse.Namespace) -> None:
    import uvloop  # uvicorn[standard]'s; gRPC's asyncio server runs a third faster on it

    logging.basicConfig(level=args.log_level.upper())
    uvloop.install()
    try:
        asyncio.run(serve_etcd(args))
    except KeyboardInterrupt:
        sys.exit(0)
