"""``fakeapi`` command line: ``fakeapi serve``, ``fakeapi etcd``, ``fakeapi seed``, ``fakeapi snapshot``,
``fakeapi report``, ``fakeapi cluster`` and ``fakeapi envtest``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

#: The commands, each a module of this package with ``add_parser`` and ``run``.
COMMANDS = ("serve", "etcd", "seed", "snapshot", "report", "cluster", "envtest")


def _command(name: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.{name}")


def build_parser(commands: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    """The command line of ``commands`` (by default every ``fakeapi`` command)."""
    parser = argparse.ArgumentParser(prog="fakeapi", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in commands:
        _command(name).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    # Only the named command's module is loaded: each imports what it runs (`fakeapi cluster` the
    # control plane's processes and an HTTP client, `fakeapi serve` the server), and loading them
    # all cost a plain `serve` a third of its start. Without a known command (`fakeapi -h`, a
    # typo) the parser of every command answers.
    named = next((word for word in argv if not word.startswith("-")), None)
    if named != "serve":
        _run(argv, (named,) if named in COMMANDS else COMMANDS)
        return
    from ..runtime import collector_paused  # with asyncio, which serve loads anyway

    with collector_paused():  # from before serve's imports until its heap is settled (runtime.settle_heap)
        _run(argv, (named,))


def _run(argv: list[str], commands: Sequence[str]) -> None:
    args = build_parser(commands).parse_args(argv)
    command = _command(args.command)
    if args.command == "serve":
        command.run(args, argv)
    elif args.command == "cluster":
        sys.exit(command.run(args))
    else:
        command.run(args)
