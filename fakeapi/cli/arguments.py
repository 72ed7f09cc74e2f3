"""What several commands' arguments share: argparse types in Go's and kube's terms, the
persistence flags, and a client of a running server."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING


from ..kubeconfig import client_settings

if TYPE_CHECKING:
    import httpx
from ..machinery.golang import parse_bool, parse_duration
from ..store import FsyncPolicy


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text}")
    return value


def duration(text: str) -> float:
    try:
        seconds = parse_duration(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"not a positive duration: {text}")
    return seconds


def go_bool(text: str) -> bool:
    """Go's ``strconv.ParseBool``, as kube's boolean flags take them."""
    try:
        return parse_bool(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_persistence_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, metavar="DIR",
                        help="persist the store in DIR (write-ahead log + snapshots) and load it from there on "
                             "start; default: memory only")
    parser.add_argument("--fsync", choices=[policy.value for policy in FsyncPolicy],
                        default=FsyncPolicy.INTERVAL.value,
                        help="with --data-dir, when writes reach the disk: always (before each is acknowledged), "
                             "interval (every --fsync-interval), never (left to the OS); all three survive a "
                             "process crash (default interval)")
    parser.add_argument("--fsync-interval", default="100ms",
                        help="the flush period of --fsync interval (default 100ms)")


def server_client(args: argparse.Namespace, timeout: float) -> httpx.Client:
    """A client of ``--url``, or with ``--kubeconfig`` of its server as its user (token or client
    certificate, its CA for https)."""
    import httpx  # the client commands' only: `serve` starts without it (and its CLI's click and rich)

    if args.kubeconfig is None:
        return httpx.Client(base_url=args.url, timeout=timeout)
    try:
        server, settings = client_settings(Path(args.kubeconfig))
    except (OSError, ValueError, KeyError, StopIteration) as err:
        raise SystemExit(f"fakeapi: --kubeconfig {args.kubeconfig}: {err!r}") from None
    return httpx.Client(base_url=server, timeout=timeout, **settings)
