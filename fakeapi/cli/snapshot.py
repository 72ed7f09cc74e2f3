"""``fakeapi snapshot save|restore|status``, like ``etcdctl snapshot``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import httpx

from ..store import DataDirInUse, Journal, SnapshotError, Store, snapshot
from .arguments import server_client


def run(args: argparse.Namespace) -> None:
    """``fakeapi snapshot save|restore|status``, like ``etcdctl snapshot``."""
    path = Path(args.file)
    try:
        if args.action == "save":
            if args.data_dir is not None:
                data = _save_from_data_dir(Path(args.data_dir))
            else:
                with server_client(args, 300) as http:
                    resp = http.get("/fakeapi/v1/snapshot")
                resp.raise_for_status()
                data = resp.content
            info = snapshot.info(data)  # checks what came before writing it
            snapshot.write_file(path, [data])
        elif args.action == "restore":
            info = snapshot.restore(path, Path(args.data_dir))
        else:
            info = snapshot.info(path.read_bytes())
    except (OSError, httpx.HTTPError, SnapshotError, DataDirInUse) as err:
        raise SystemExit(f"fakeapi snapshot {args.action}: {err}") from None
    print(f"{path}: revision {info.revision}, compacted at {info.compact_revision}, {info.keys} keys, "
          f"{info.versions} versions, {info.leases} leases, {info.size} bytes, crc32 {info.crc32:08x}", flush=True)


def _save_from_data_dir(directory: Path) -> bytes:
    """The store a stopped server left in ``directory``, as snapshot bytes."""
    if not directory.is_dir():
        raise FileNotFoundError(f"no data directory {directory}")
    store = Store()
    journal = Journal.open(store, directory)
    try:
        return b"".join(snapshot.encode(store))
    finally:
        journal.close()


def add_parser(sub: Any) -> None:
    snap = sub.add_parser("snapshot", help="save, restore or inspect a snapshot of the store (like etcdctl snapshot)")
    actions = snap.add_subparsers(dest="action", required=True)
    save = actions.add_parser("save", help="write the store of a running server (--url) or of a data directory to FILE")
    save.add_argument("file", metavar="FILE")
    source = save.add_mutually_exclusive_group()
    source.add_argument("--url", default="http://127.0.0.1:6443", help="a running server (default http://127.0.0.1:6443)")
    source.add_argument("--kubeconfig", metavar="FILE",
                        help="a running server as a kubeconfig reaches it (the one `fakeapi serve` wrote: its URL, "
                             "credential and CA)")
    source.add_argument("--data-dir", help="the data directory of a stopped server")
    restore = actions.add_parser("restore", help="make a new data directory from FILE (then: fakeapi serve --data-dir DIR)")
    restore.add_argument("file", metavar="FILE")
    restore.add_argument("--data-dir", required=True, help="the data directory to create (missing or empty)")
    status = actions.add_parser("status", help="check FILE and print its revision, keys and size")
    status.add_argument("file", metavar="FILE")
