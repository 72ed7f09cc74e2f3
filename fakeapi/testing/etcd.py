"""A ``fakeapi etcd`` process on a free loopback port: the store behind etcd's v3 gRPC API, for
tests that point etcd clients (etcdctl, clientv3, a real kube-apiserver) at it."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections import deque
from collections.abc import Sequence

from ..cluster.processes import spawn, stop_all

#: How long the server gets to print its "serving" line.
START_TIMEOUT = 30.0


class FakeEtcdProcess:
    """``fakeapi etcd --listen-client-urls http://127.0.0.1:0`` plus ``extra_args``;
    ``client_url`` is where it serves once ``start`` returns. The server dies with this process
    (``fakeapi.cluster.processes.spawn``)."""

    def __init__(self, extra_args: Sequence[str] = ()) -> None:
        self.extra_args = list(extra_args)
        self.process: subprocess.Popen[str] | None = None
        self.client_url = ""
        self.output: deque[str] = deque(maxlen=200)

    def start(self) -> str:
        self.process = spawn(
            [sys.executable, "-m", "fakeapi.cli", "etcd", "--listen-client-urls",
             "http://127.0.0.1:0", *self.extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # printed once it accepts requests
        if "serving etcd v3 gRPC on " not in line:
            self.stop()
            raise RuntimeError(f"fakeapi etcd did not start: {line}")
        self.client_url = line.rsplit(" on ", 1)[1].split(",")[0].strip()
        # Keep reading its output (the last lines are kept for a failing test), so the process
        # never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()
        return self.client_url

    def _drain(self) -> None:
        process = self.process
        if process is not None and process.stdout is not None:
            for line in process.stdout:
                self.output.append(line)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            stop_all([process])

    def __enter__(self) -> FakeEtcdProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
