"""``fakeapi report``: a running server's per-client report, as a table or JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

import httpx

from ..clients import SORT_KEYS
from ..clients.table import render
from .arguments import duration, server_client


def run(args: argparse.Namespace) -> None:
    """``fakeapi report``: a running server's per-client report, as a table or JSON."""
    query = {"sort": args.sort, **({"since": args.since} if args.since else {})}
    with server_client(args, 30) as http:
        url = http.base_url.join("/fakeapi/v1/report").copy_merge_params(query)
        try:
            response = http.get(url)
        except httpx.HTTPError as err:
            raise SystemExit(f"fakeapi report: {url}: {err}") from None
    if response.status_code != 200:
        raise SystemExit(f"fakeapi report: {url}: {response.status_code} {response.text}")
    report = response.json()
    print(json.dumps(report, indent=2) if args.json else render(report, args.rows))


def add_parser(sub: Any) -> None:
    r = sub.add_parser("report", help="a running server's per-client cost report and the detectors that fired")
    r.add_argument("--url", default="http://127.0.0.1:6443", help="the server (default http://127.0.0.1:6443)")
    r.add_argument("--kubeconfig", metavar="FILE",
                   help="the server as a kubeconfig reaches it (the one `fakeapi serve` wrote: its URL, credential "
                        "and CA), instead of --url")
    r.add_argument("--since", type=duration, help="only the last DURATION (5m, 30s); default: since it started")
    r.add_argument("--sort", choices=sorted(SORT_KEYS), default="time", help="order clients by (default time)")
    r.add_argument("--rows", type=int, default=3, help="requests shown under each client (default 3)")
    r.add_argument("--json", action="store_true", help="the report's JSON instead of a table")
