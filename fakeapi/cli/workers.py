"""``fakeapi serve --workers N``: N API processes on one port over one store, the way N
kube-apiservers share one etcd.

The store is its own process, ``fakeapi etcd`` (in memory, or in ``--data-dir``), unless
``--etcd-servers`` names an etcd to use instead. Each worker is ``fakeapi serve`` over that etcd
(``--etcd-servers``): its own registry, watch caches fed by etcd watches, and an HTTP listener
bound to the same address with ``SO_REUSEPORT``, so the kernel spreads connections over the
workers. Worker 0 starts first and alone does what one kube-apiserver of many would leave to one
(or to kube-controller-manager): it writes the bootstrap objects and the default namespaces
(the others then find them), runs the built-in controllers, compacts the store, seeds it, and
writes the kubeconfig. The others run no controllers and never compact.

This process only supervises: it holds the port (bound, never listening, so a port 0 stays the
workers' own), prints one "listening on" line once every worker is up, forwards SIGTERM and
SIGINT, and stops everything when any child ends: the workers at once, then the store. Its
children die with it, even killed by SIGKILL (``fakeapi.cluster.processes``). What each worker
keeps in memory stays per worker: faults, metrics and the client report answer for the worker a
request reaches.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from ..auth.serviceaccount_tokens import write_signing_key
from ..cluster.processes import spawn, stop_all
from .sockets import bound_socket

#: How long the store and each worker get to print their ready line.
START_TIMEOUT = 60.0


class _Child:
    """A child process whose output is read line by line: its first line matching ``ready`` is
    kept, and everything after it is copied to this process's stdout (nothing is lost, and a
    child never blocks on a full pipe)."""

    def __init__(self, name: str, argv: list[str], ready: str) -> None:
        self.name = name
        self.process = spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.ready_line = ""
        self._ready = threading.Event()
        self._marker = ready
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str] | None) -> None:
        assert stream is not None
        for line in stream:
            if not self._ready.is_set() and self._marker in line:
                self.ready_line = line.strip()
                self._ready.set()
                continue
            sys.stdout.write(f"[{self.name}] {line}")
            sys.stdout.flush()
        self._ready.set()  # ended before it was ready: wait_ready sees no line

    def wait_ready(self) -> str:
        if not self._ready.wait(START_TIMEOUT) or not self.ready_line:
            raise SystemExit(f"fakeapi: {self.name} did not start (exit code {self.process.poll()})")
        return self.ready_line


def _store_argv(args: argparse.Namespace, socket_path: str) -> list[str]:
    """``fakeapi etcd`` with the store's share of ``serve``'s arguments, answering the workers'
    calls and watches on ``socket_path`` too (``fakeapi.etcd.framed``: gRPC in Python costs more
    than the store's work)."""
    argv = [sys.executable, "-m", "fakeapi.cli", "etcd", "--listen-socket", socket_path,
            "--listen-client-urls", args.etcd_listen_client_urls or "http://127.0.0.1:0",
            "--max-request-bytes", str(args.max_request_bytes),
            "--watch-progress-notify-interval", args.progress_interval]
    if args.data_dir is not None:
        argv += ["--data-dir", str(args.data_dir), "--fsync", args.fsync, "--fsync-interval", args.fsync_interval]
    return argv


def _worker_argv(serve_argv: Sequence[str], index: int, port: int, etcd_servers: str,
                 socket_path: str | None) -> list[str]:
    """``serve``'s own arguments, then what makes it worker ``index`` (argparse keeps the last
    of a repeated option); over the store process, its framed socket too."""
    argv = [sys.executable, "-m", "fakeapi.cli", "serve", *serve_argv,
            "--workers", "1", "--worker-index", str(index), "--port", str(port), "--etcd-servers", etcd_servers]
    if socket_path is not None:
        argv += ["--etcd-socket", socket_path]
    if index > 0:
        argv += ["--controllers=", "--compaction-interval", "0"]
    return argv


def run(args: argparse.Namespace, serve_argv: Sequence[str]) -> int:
    """Supervise the store and ``args.workers`` API workers until a signal or a child ends."""
    if args.from_snapshot is not None:
        raise SystemExit("fakeapi: --from-snapshot with --workers: restore it first "
                         "(fakeapi snapshot restore FILE --data-dir DIR), then serve --data-dir DIR")
    with tempfile.TemporaryDirectory(prefix="fakeapi-workers-") as private:
        if args.service_account_signing_key_file is None:
            # One key for every worker: a token one worker issues is one any other accepts.
            serve_argv = [*serve_argv, "--service-account-signing-key-file", str(write_signing_key(Path(private)))]
        return _supervise(args, serve_argv, str(Path(private) / "store.sock"))


def _supervise(args: argparse.Namespace, serve_argv: Sequence[str], socket_path: str) -> int:
    holder = bound_socket(args.host, args.port, reuse_port=True)
    port = holder.getsockname()[1]
    store: _Child | None = None
    children: list[_Child] = []  # the store (if any) and the workers, in start order
    stopping = threading.Event()

    def stop(_signum: int = 0, _frame: object = None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        etcd_servers = args.etcd_servers
        store_url = ""
        store_socket = None
        if not etcd_servers:
            store = _Child("store", _store_argv(args, socket_path), "serving etcd v3 gRPC on ")
            children.append(store)
            store_url = store.wait_ready().split("serving etcd v3 gRPC on ")[1].split(",")[0].strip()
            etcd_servers, store_socket = store_url, socket_path
        first = _Child("worker 0", _worker_argv(serve_argv, 0, port, etcd_servers, store_socket), "listening on ")
        children.append(first)
        line = first.wait_ready()
        others = [_Child(f"worker {i}", _worker_argv(serve_argv, i, port, etcd_servers, store_socket),
                         "listening on ") for i in range(1, args.workers)]
        children += others
        for worker in others:
            worker.wait_ready()
        where = f"the store at {store_url}" if store_url else f"etcd {etcd_servers}"
        print(line.replace(")", f"; {args.workers} API workers over {where})", 1) if line.endswith(")") else line,
              flush=True)
        while not stopping.wait(0.2):
            ended = next((c for c in children if c.process.poll() is not None), None)
            if ended is not None:
                print(f"fakeapi: {ended.name} exited with {ended.process.returncode}; stopping", file=sys.stderr,
                      flush=True)
                return 1
        return 0
    finally:
        # The workers at once, then the store: a worker's stop does not meet its store gone.
        stop_all([child.process for child in children if child is not store])
        if store is not None:
            stop_all([store.process])
        holder.close()
