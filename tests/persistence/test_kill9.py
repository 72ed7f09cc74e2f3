"""``fakeapi serve --data-dir`` killed with SIGKILL at random moments under a stream of writes
from several clients, restarted each time on the same data directory and port (issue 13):

- every write a client saw acknowledged is there after the restart, with the resourceVersion
  it was acknowledged with (a write in flight at the kill may or may not be);
- revisions are strictly increasing across restarts: nothing is ever given a revision that
  something acknowledged before the kill had;
- a watch resuming from a resourceVersion older than the restart gets 410 Expired (the Python
  client), as from a restarted kube-apiserver, and a relist shows the acknowledged state;
- client-go informers (tests/clientgo's harness) running through the last restarts, resuming or
  relisting after each, end with exactly the server's state.

The three fsync modes take turns: a process crash loses nothing acknowledged in any of them.
"""

from __future__ import annotations

import random
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

from fakeapi.testing import ServerProcess

ROUNDS = 20
#: The client-go informers live through the last rounds only: client-go backs off longer after
#: each failed reconnection, and twenty restarts in a row would make them slow to come back.
HARNESS_ROUNDS = 3
WRITERS = 3
NS = "default"
CMS = f"/api/v1/namespaces/{NS}/configmaps"

#: What a writer knows of one of its objects: (resourceVersion, data) or None (deleted).
Known = tuple[str, str] | None


@dataclass
class Writer:
    """One client writing its own configmaps (creates, updates, deletes) until the server dies."""

    index: int
    acked: dict[str, Known] = field(default_factory=dict)
    #: The write in flight when the server went away: (name, what it would have made it).
    in_flight: tuple[str, Known] | None = None
    counter: int = 0
    max_rv: int = 0

    def run(self, url: str, rng: random.Random) -> None:
        self.in_flight = None
        with httpx.Client(base_url=url, timeout=10) as http:
            while True:
                self.counter += 1
                live = [name for name, known in self.acked.items() if known is not None]
                op = rng.random()
                if op < 0.5 or not live:
                    name = f"w{self.index}-{self.counter}"
                    data = f"create-{self.counter}"
                    request = ("POST", CMS, {"metadata": {"name": name}, "data": {"v": data}})
                elif op < 0.85:
                    name = rng.choice(live)
                    data = f"update-{self.counter}"
                    request = ("PUT", f"{CMS}/{name}", {"metadata": {"name": name}, "data": {"v": data}})
                else:
                    name, data = rng.choice(live), None
                    request = ("DELETE", f"{CMS}/{name}", None)
                self.in_flight = (name, None if data is None else ("?", data))
                try:
                    resp = http.request(request[0], request[1], json=request[2])
                except httpx.TransportError:
                    return  # killed: in_flight may or may not have happened
                assert resp.status_code in (200, 201), resp.text
                body = resp.json()
                if data is None:
                    self.acked[name] = None
                else:
                    rv = body["metadata"]["resourceVersion"]
                    assert body["data"]["v"] == data
                    self.acked[name] = (rv, data)
                    self.max_rv = max(self.max_rv, int(rv))
                self.in_flight = None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_state(http: httpx.Client) -> tuple[int, dict[str, tuple[str, str]]]:
    body = http.get(CMS).json()
    return int(body["metadata"]["resourceVersion"]), {
        o["metadata"]["name"]: (o["metadata"]["resourceVersion"], o["data"]["v"]) for o in body["items"]}


def check_acknowledged(writers: list[Writer], state: dict[str, tuple[str, str]]) -> None:
    for writer in writers:
        for name, known in writer.acked.items():
            actual = state.get(name)
            if writer.in_flight is not None and writer.in_flight[0] == name:
                pending = writer.in_flight[1]
                if (actual is None and pending is None) or (
                        actual is not None and pending is not None and actual[1] == pending[1]):
                    writer.acked[name] = actual  # the in-flight write made it: now it is known
                    continue
            assert actual == known, f"{name}: acknowledged {known}, found {actual}"
        if writer.in_flight is not None and writer.in_flight[0] not in writer.acked:
            name = writer.in_flight[0]
            writer.acked[name] = state.get(name)  # an unacknowledged create: either way is right
    known_names = {name for writer in writers for name in writer.acked}
    assert {name for name in state if not name.startswith("bump-")} <= known_names


def python_client(kubeconfig: Path) -> client.CoreV1Api:
    cfg = client.Configuration()
    config.load_kube_config(config_file=str(kubeconfig), client_configuration=cfg)
    return client.CoreV1Api(client.ApiClient(cfg))


def test_sigkill_under_writes_loses_nothing_acknowledged(tmp_path: Path, start_harness: Any) -> None:
    rng = random.Random(20261125)
    port = free_port()
    data_dir = tmp_path / "data"
    modes = ("interval", "always", "never")
    writers = [Writer(i) for i in range(WRITERS)]
    highest_seen = 0  # every resourceVersion any client was given before the current round
    old_rv: int | None = None
    harness = None
    server = None
    expired = 0
    try:
        for round_ in range(ROUNDS):
            server = ServerProcess(tmp_path, "--port", str(port), "--data-dir", str(data_dir),
                                   "--fsync", modes[round_ % len(modes)])
            revision, state = server_state(server.http)
            check_acknowledged(writers, state)
            assert revision >= highest_seen, "the restarted store is behind what was acknowledged"
            if old_rv is not None:
                # Resuming from before the restart: 410 Expired, then a relist shows it all.
                core = python_client(server.kubeconfig)
                with pytest.raises(ApiException) as gone:
                    for _event in watch.Watch().stream(core.list_namespaced_config_map, NS,
                                                       resource_version=str(old_rv), timeout_seconds=5):
                        pass
                assert gone.value.status == 410 and "too old resource version" in str(gone.value.reason)
                relisted = core.list_namespaced_config_map(NS)
                assert {o.metadata.name: (o.metadata.resource_version, o.data["v"]) for o in relisted.items} == state
                core.api_client.close()
                expired += 1
            if harness is None and round_ >= ROUNDS - HARNESS_ROUNDS:
                harness = start_harness(server.kubeconfig, False, tmp_path / "no-pause")
            # A write at once, so the store moves past every resourceVersion of the last run.
            bump = server.http.post(CMS, json={"metadata": {"generateName": "bump-"}, "data": {"v": "bump"}})
            assert int(bump.json()["metadata"]["resourceVersion"]) > max(highest_seen, revision)
            old_rv = revision

            threads = [threading.Thread(target=w.run, args=(server.url, random.Random(rng.random())))
                       for w in writers]
            for thread in threads:
                thread.start()
            time.sleep(rng.uniform(0.1, 0.35))
            server.process.send_signal(signal.SIGKILL)
            server.process.wait(10)
            server.http.close()
            for thread in threads:
                thread.join(15)
                assert not thread.is_alive()
            highest_seen = max([highest_seen, int(bump.json()["metadata"]["resourceVersion"]),
                                *(w.max_rv for w in writers)])

        server = ServerProcess(tmp_path, "--port", str(port), "--data-dir", str(data_dir))
        revision, state = server_state(server.http)
        check_acknowledged(writers, state)
        assert revision >= highest_seen
        assert expired == ROUNDS - 1
        assert sum(len(w.acked) for w in writers) > ROUNDS  # writes did land between the kills
        # client-go informers went through every restart and end with the server's state.
        assert harness is not None
        want = {name: rv for name, (rv, _data) in state.items()}
        def converged(_messages: Any) -> bool:
            dump = harness.dump()
            return dump["configmaps"] == want and dump["dyn-configmaps"] == want

        harness.wait_for(converged, "client-go's configmaps (typed and dynamic) equal to the server's", timeout=90)
        assert harness.quit() == 0
    finally:
        if server is not None and server.process.poll() is None:
            server.stop()
