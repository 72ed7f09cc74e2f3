"""A real ``fakeapi serve`` process on a free loopback port, for tests that drive it from other
processes (kubectl, client-go programs, operators) or want it isolated from their own loop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

#: How long a server gets to print its "listening" line.
START_TIMEOUT = 30.0


class ServerProcess:
    """``fakeapi serve --port 0`` with ``extra_args``; the kubeconfig goes to ``workdir``."""

    def __init__(self, workdir: Path, *extra_args: str) -> None:
        self.kubeconfig = workdir / "kubeconfig"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0", "--kubeconfig", str(self.kubeconfig),
             "--compaction-interval", "0", *extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the server prints it once it accepts requests
        if "listening on" not in line:
            self.process.kill()
            raise RuntimeError(f"fakeapi did not start: {line}{self.process.stdout.read()}")
        self.url = line.split("listening on ")[1].split()[0]
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def stop(self) -> None:
        self.http.close()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

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

    def close_watches(self, group: str | None = None, resource: str | None = None) -> int:
        """End open watches (all, a group's, or a resource's); returns how many were closed."""
        body = {k: v for k, v in (("group", group), ("resource", resource)) if v is not None}
        return self._control("faults/close-watches", body)["closed"]
