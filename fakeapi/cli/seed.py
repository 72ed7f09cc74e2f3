"""``fakeapi seed``: a synthetic cluster written through a running server's API. The seeder is
imported where it is used: ``fakeapi serve`` takes ``--seed`` through this module, and a start
without it loads none of it."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Any

from .arguments import positive_int

if TYPE_CHECKING:
    from ..seed import seeder


def seed_spec(text: str) -> seeder.SeedSpec:
    from ..seed import seeder

    try:
        return seeder.parse_spec(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def report_seed(result: seeder.SeedResult) -> None:
    """The start-up seeding's numbers, on a terminal only: scripts wait for the first line
    being "listening on"."""
    if sys.stderr.isatty():
        print(f"fakeapi: {result}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> None:
    """``fakeapi seed``: write a synthetic cluster through a running server's API."""
    from ..seed import seeder

    try:
        result = asyncio.run(seeder.seed_over_http(args.server, args.spec, args.concurrency))
    except seeder.SeedError as err:
        raise SystemExit(f"fakeapi seed: {err}") from None
    print(result, flush=True)


def add_parser(sub: Any) -> None:
    from ..seed import seeder

    s = sub.add_parser("seed", help="write a synthetic cluster through a running server's API",
                       description=seeder.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("spec", type=seed_spec, metavar="SPEC",
                   help="e.g. namespaces=10,nodes=50,pods=5000,deployments=200,seed=1, or a YAML/JSON file")
    s.add_argument("--server", default="http://127.0.0.1:6443", help="the API's URL (default http://127.0.0.1:6443)")
    s.add_argument("--concurrency", type=positive_int, default=16, help="requests in flight (default 16)")
