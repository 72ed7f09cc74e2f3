"""What one Locust process can drive: the ``get-patch`` profile (unpaced GET and PATCH of pods)
through Locust's requests-based ``HttpUser`` (how the profiles sent requests before) and through
``KubeClient`` (geventhttpclient), one Locust process each, one after the other, against

* ``replay``: a stub that answers every request with a response recorded from fakeapi (a pod,
  a patched pod, the pod list a profile starts with), at a small fraction of fakeapi's cost,
  so the Locust process is the limit: its requests/s is the client's capacity;
* ``fakeapi`` itself, seeded with the profile's cluster: the profile as it runs, where the fast
  client saturates the server first. There requests per Locust CPU-second stand in for
  capacity, and understate it: at a rate below its capacity a gevent process pays a wake-up
  per response instead of sharing one among many.

Prints requests/s, the CPU and busy share (on a core or waiting for one) of the Locust process
and of the server, and requests per Locust CPU-second, over the steady part of each run.

    python loadtests/client_bench.py [--users 20] [--duration 20s]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import multiprocessing
import re
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
import numpy as np  # noqa: E402
import uvloop  # noqa: E402

from cpu import interval  # noqa: E402
from profiles import PROFILES  # noqa: E402
from run import RunResult, run_profile  # noqa: E402

CLIENTS = ("requests", "fast")
WARM_UP_SECONDS = 6
_CONTENT_LENGTH = re.compile(rb"(?i)\r\ncontent-length: *(\d+)")


def measure(result: RunResult, warm_up_seconds: float) -> dict[str, float]:
    """Rates over the steady part of the run: from the first CPU sample ``warm_up_seconds`` in
    (Locust imported, users started, pod names listed) to the last one before Locust stopped;
    requests in that window from Locust's per-second history (cumulative counts, interpolated)."""
    history = []
    with (result.out / "stats_stats_history.csv").open() as f:
        for row in csv.DictReader(f):
            if row["Name"] == "Aggregated":
                history.append((float(row["Timestamp"]), float(row["Total Request Count"])))
    samples = result.summary["server_samples"]
    window = [s for s in samples if samples[0]["time"] + warm_up_seconds <= s["time"] <= history[-1][0]]
    span = interval(window[0], window[-1]) if len(window) > 1 else None
    if span is None:
        raise SystemExit("no steady window: run longer (--duration)")
    times, counts = zip(*history)
    requests = float(np.interp(window[-1]["time"], times, counts) - np.interp(window[0]["time"], times, counts))
    locust_cpu = sum(span.locust.values())
    return {"requests_per_second": requests / span.seconds, "locust_cpu": locust_cpu,
            "locust_busy": max(span.locust_busy.values()), "server_cpu": span.server or 0.0,
            "server_busy": span.server_busy or 0.0, "per_locust_cpu_second": requests / span.seconds / locust_cpu}


def recorded_responses(url: str) -> dict[str, bytes]:
    """fakeapi's answers to what ``get-patch`` asks (the pod list it starts with, a GET and a
    PATCH of a pod), as whole HTTP/1.1 responses with uvicorn's headers."""
    with httpx.Client(base_url=url) as http:
        listed = http.get("/api/v1/pods", params={"resourceVersion": "0", "limit": "50"})
        first = listed.json()["items"][0]["metadata"]
        path = f"/api/v1/namespaces/{first['namespace']}/pods/{first['name']}"
        got = http.get(path)
        patched = http.patch(path, content=b'{"metadata":{"annotations":{"load.fakeapi.dev/written-at":"1"}}}',
                             headers={"Content-Type": "application/merge-patch+json"})
    return {name: (f"HTTP/1.1 200 OK\r\ndate: {response.headers['date']}\r\nserver: uvicorn\r\n"
                   f"content-length: {len(response.content)}\r\ncontent-type: application/json\r\n\r\n").encode()
            + response.content for name, response in (("list", listed), ("get", got), ("patch", patched))}


class _Replay(asyncio.Protocol):
    """Answers each request of a keep-alive connection with its recorded response."""

    def __init__(self, responses: dict[str, bytes]) -> None:
        self.responses = responses
        self.buffer = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            length = int(match.group(1)) if (match := _CONTENT_LENGTH.search(self.buffer, 0, end + 2)) else 0
            if len(self.buffer) < end + 4 + length:
                return
            request, self.buffer = self.buffer[:end], self.buffer[end + 4 + length:]
            kind = "patch" if request.startswith(b"PATCH") else "list" if request.startswith(b"GET /api/v1/pods?") else "get"
            self.transport.write(self.responses[kind])  # type: ignore[attr-defined]


def _serve_replay(responses: dict[str, bytes], listening: socket.socket) -> None:
    async def serve() -> None:
        server = await asyncio.get_running_loop().create_server(lambda: _Replay(responses), sock=listening)
        await server.serve_forever()

    uvloop.run(serve())


def run_both(name: str, url: str, server_pid: int, workdir: Path, users: int, duration: str) -> dict[str, dict]:
    profile, rows = PROFILES["get-patch"], {}
    for client in CLIENTS:
        out = workdir / f"{name}-{client}"
        result = run_profile(profile, url, out, profile.full, users=users, duration=duration, knobs={"CLIENT": client},
                             server_pid=server_pid, processes=1)
        if result.exit_code not in (0, 3, 4):
            raise SystemExit(f"{name}/{client}: exit code {result.exit_code}\n{(out / 'locust.log').read_text()[-3000:]}")
        rows[client] = measure(result, WARM_UP_SECONDS)
        time.sleep(1)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--duration", default="20s")
    args = parser.parse_args(argv)
    from fakeapi.testing import ServerProcess

    tables = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        with ServerProcess(workdir, "--seed", PROFILES["get-patch"].full.seed) as server:
            responses = recorded_responses(server.url)
            tables["fakeapi"] = run_both("fakeapi", server.url, server.process.pid, workdir, args.users, args.duration)
        listening = socket.create_server(("127.0.0.1", 0))
        replay = multiprocessing.get_context("fork").Process(target=_serve_replay, args=(responses, listening), daemon=True)
        replay.start()
        try:
            url = f"http://127.0.0.1:{listening.getsockname()[1]}"
            tables["replay"] = run_both("replay", url, replay.pid, workdir, args.users, args.duration)  # type: ignore[arg-type]
        finally:
            replay.terminate()
            replay.join()
            listening.close()
    print(f"get-patch, {args.users} users, {args.duration} per run, one Locust process; after the first "
          f"{WARM_UP_SECONDS} s; CPU and busy in % of a core:")
    print(f"{'server':<9}{'client':<10}{'req/s':>8}{'Locust CPU':>12}{'busy':>6}{'server CPU':>12}{'busy':>6}"
          f"{'req per Locust CPU-s':>22}")
    for server_name, rows in tables.items():
        for client, row in rows.items():
            print(f"{server_name:<9}{client:<10}{row['requests_per_second']:>8.0f}{row['locust_cpu']:>12.0%}"
                  f"{row['locust_busy']:>6.0%}{row['server_cpu']:>12.0%}{row['server_busy']:>6.0%}"
                  f"{row['per_locust_cpu_second']:>22.0f}")
    replayed, real = tables["replay"], tables["fakeapi"]
    print(f"fast / requests: {replayed['fast']['requests_per_second'] / replayed['requests']['requests_per_second']:.1f}x "
          "the requests/s of one Locust process against replay; "
          f"{real['fast']['per_locust_cpu_second'] / real['requests']['per_locust_cpu_second']:.1f}x "
          "the requests per Locust CPU-second against fakeapi")
    return 0


if __name__ == "__main__":
    sys.exit(main())
