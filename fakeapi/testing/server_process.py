"""A real ``fakeapi serve`` process on a free loopback port, for tests that drive it from other
processes (kubectl, client-go programs, operators) or want it isolated from their own loop."""

from __future__ import annotations

import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import httpx

from ..kubeconfig import client_settings
from ..cluster.processes import spawn, stop_all

if TYPE_CHECKING:
    from .report import Report

#: How long a server gets to print its "listening" line.
START_TIMEOUT = 30.0


class ServerProcess:
    """``fakeapi serve --port 0`` with ``extra_args``; the kubeconfig goes to ``workdir``. The
    server dies with this process (``fakeapi.cluster.processes.spawn``)."""

    def __init__(self, workdir: Path, *extra_args: str) -> None:
        self.kubeconfig = workdir / "kubeconfig"
        launched = time.monotonic()
        self.process = spawn(
            [sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0", "--kubeconfig", str(self.kubeconfig),
             "--compaction-interval", "0", *extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        assert self.process.stdout is not None
        #: What the server said before it listened: warnings (a torn record dropped from the log
        #: of a server that was killed, an exposed address), each a line of its own.
        self.startup_output: list[str] = []
        # The server prints "listening on" once it accepts requests; the output ends if it exits.
        while "listening on" not in (line := self.process.stdout.readline()):
            if not line:
                self.process.kill()
                raise RuntimeError(f"fakeapi did not start: {''.join(self.startup_output)}")
            self.startup_output.append(line)
        #: Seconds from the launch to the server's "listening on": it answers /readyz from then.
        self.listening_after = time.monotonic() - launched
        self.url = line.split("listening on ")[1].split()[0]
        #: The server's output from then on (its log, a failed handler's traceback). Read as it
        #: comes: a pipe nobody reads fills, and the server then blocks writing its log.
        # Opened here, not in the thread: the file exists once the server is up.
        self.log_path = workdir / "fakeapi.log"
        log = self.log_path.open("w", buffering=1)  # line-buffered: current while the server runs
        threading.Thread(target=_copy, args=(self.process.stdout, log), daemon=True).start()
        #: With ``--etcd-listen-client-urls``: where the store is served over etcd's gRPC API.
        self.etcd_urls = line.split("; etcd: ")[1].rstrip(")\n").split(", ") if "; etcd: " in line else []
        #: Authenticated as the kubeconfig's user (its token or client certificate), verifying
        #: the server against the kubeconfig's CA with ``--tls``.
        _, credentials = client_settings(self.kubeconfig)
        #: How to verify the server: its CA (with ``--tls``), else True.
        self.verify: ssl.SSLContext | bool = credentials.get("verify", True)
        self.http = httpx.Client(base_url=self.url, timeout=30, **credentials)

    def stop(self) -> None:
        self.http.close()
        stop_all([self.process])

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _control(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        resp = self.http.post(f"/fakeapi/v1/{path}", json=body)
        resp.raise_for_status()
        return resp.json()

    def compact(self, revision: int | None = None) -> dict[str, Any]:
        """Compact the store at ``revision`` (default: the current one)."""
        return self._control("compact", {} if revision is None else {"revision": revision})

    def close_watches(self, group: str | None = None, resource: str | None = None,
                      namespace: str | None = None) -> int:
        """End open watches (all, a group's, a resource's, a namespace's); returns how many."""
        return self._control("faults/close-watches", _spec(group=group, resource=resource, namespace=namespace))["closed"]

    def report(self, since: float | None = None, sort: str = "time") -> Report:
        """The per-client report (``GET /fakeapi/v1/report``)."""
        from .report import Report  # the report's modules only for tests that read one

        return Report.fetch(self.http, since, sort)

    # Faults: thin wrappers of the HTTP control API, named and shaped like ``fakeapi.faults.engine.Faults``.

    def faults(self) -> dict[str, Any]:
        """Every fault with its counters, the knobs in force and the totals."""
        resp = self.http.get("/fakeapi/v1/faults")
        resp.raise_for_status()
        return resp.json()

    def restart(self) -> int:
        """An apiserver restart (watches end, watch caches forget their history); returns how
        many watches ended."""
        return self._control("faults/restart", {})["closed"]

    def stall_watches(self, seconds: float, **target: Any) -> dict[str, Any]:
        """Hold the open watches' events for ``seconds`` (``group``, ``resource``, ``namespace``)."""
        return self._control("faults/stall", _spec(seconds=seconds, **target))

    def inject_error(self, **spec: Any) -> dict[str, Any]:
        """``code``, ``verb``, ``resource``, ``count`` or ``rate``, ... (``Faults.inject_error``)."""
        return self._control("faults/error", _spec(**spec))

    def inject_latency(self, **spec: Any) -> dict[str, Any]:
        """``seconds``, ``uniform``, ``per_item``, ``verb``, ... (``Faults.inject_latency``)."""
        return self._control("faults/latency", _spec(**spec))

    def set(self, **knobs: Any) -> dict[str, Any]:
        """Run-time knobs: ``bookmark_interval``, ``max_watch_timeout``, ... (``Faults.set``)."""
        return self._control("faults/set", _spec(**knobs))

    def clear_faults(self, fault_id: str | None = None) -> int:
        """Clear one fault, or all of them; returns how many were cleared."""
        resp = self.http.delete("/fakeapi/v1/faults" + (f"/{fault_id}" if fault_id else ""))
        resp.raise_for_status()
        return resp.json()["cleared"]


def _copy(output: IO[str], log: IO[str]) -> None:
    with log:
        for line in output:
            log.write(line)


def _spec(**fields: Any) -> dict[str, Any]:
    """A fault spec body: the fields given (None means not given)."""
    return {k: v for k, v in fields.items() if v is not None}
