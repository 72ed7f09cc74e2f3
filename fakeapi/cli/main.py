"""``fakeapi`` command line: ``fakeapi serve``, ``fakeapi etcd``, ``fakeapi seed``, ``fakeapi snapshot``,
``fakeapi report``, ``fakeapi cluster`` and ``fakeapi envtest``."""

from __future__ import annotations

import argparse
import sys

from . import cluster, envtest, etcd, report, seed, serve, snapshot


def build_parser() -> argparse.ArgumentParser:
    """The command line of every ``fakeapi`` command."""
    parser = argparse.ArgumentParser(prog="fakeapi", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for command in (serve, etcd, seed, snapshot, report, cluster, envtest):
        command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        serve.run(args, argv)
    elif args.command == "etcd":
        etcd.run(args)
    elif args.command == "seed":
        seed.run(args)
    elif args.command == "snapshot":
        snapshot.run(args)
    elif args.command == "cluster":
        sys.exit(cluster.run(args))
    elif args.command == "report":
        report.run(args)
    elif args.command == "envtest":
        envtest.run(args)
