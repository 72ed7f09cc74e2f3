"""A soak run of ``fakeapi serve`` (on loopback, started here): hundreds of informer-like
watchers, steady writes, periodic compaction, forced watch drops (``close-watches``) and
``restart`` faults, for a bounded time; every watcher's stream checked, the server's resident
memory sampled.

Each watcher lists, then watches from the list's resourceVersion with bookmarks and a random
``timeoutSeconds``, resumes from the last resourceVersion it saw whenever its stream ends, and
relists on 410 Expired, as client-go's reflector does. Checked for every watcher:

* ordered: resourceVersions strictly increase along its life (a relist starts from the list's);
* no duplicates: no (object, resourceVersion) delivered twice;
* no gaps within its window: every create and update the writers saw acknowledged in its scope,
  after its first list and up to the last resourceVersion it reached, was delivered, but those a
  relist covered (a relist replaces the state, so what it skips is not lost);
* final state: once the writers stop and it caught up, its objects (name -> resourceVersion)
  are a fresh LIST's.

Memory: the server's RSS every ``sample_every`` seconds; ``levelled_off`` compares the second
half of the run with the first.

``python -m fakeapi.testing.soak --duration 30m --watchers 300`` prints the summary as JSON
(``--markdown`` for a table); ``run_soak(SoakConfig(...))`` returns it (``tests/robustness``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

from ..machinery.golang import parse_duration
from .server_process import ServerProcess

Key = tuple[str, str]  # (namespace, name)


@dataclass
class SoakConfig:
    duration: float = 120.0
    watchers: int = 200
    namespaces: int = 4
    #: Objects per namespace: writes update, delete and recreate within this key space, so the
    #: store's size stays bounded and memory can level off.
    keys: int = 100
    write_rate: float = 50.0  # writes per second, all writers together
    writers: int = 4
    payload_bytes: int = 512
    compact_every: float = 10.0
    drop_every: float = 15.0  # close-watches
    restart_every: float = 60.0  # the restart fault (0: never)
    sample_every: float = 2.0
    seed: int = 1
    #: Extra ``fakeapi serve`` flags.
    server_args: tuple[str, ...] = ()


@dataclass
class WatcherReport:
    namespace: str | None
    events: int = 0
    bookmarks: int = 0
    resumes: int = 0
    relists: int = 0
    expired: int = 0
    violations: list[str] = field(default_factory=list)


class Watcher:
    """One informer: list, then watch and resume; its state and what it saw."""

    def __init__(self, client: httpx.AsyncClient, namespace: str | None, rng: random.Random) -> None:
        self.client = client
        self.namespace = namespace
        self.path = f"/api/v1/namespaces/{namespace}/configmaps" if namespace else "/api/v1/configmaps"
        self.rng = rng
        self.state: dict[Key, int] = {}
        self.rv = 0
        self.first_rv = 0
        self.seen: set[tuple[Key, int]] = set()
        #: (from, to]: resourceVersions a relist jumped over.
        self.relist_gaps: list[tuple[int, int]] = []
        self.report = WatcherReport(namespace)
        self.stopping = False
        self.expired = False  # a 410 ended the stream: relist before watching again

    def violation(self, text: str) -> None:
        if len(self.report.violations) < 20:
            self.report.violations.append(text)

    async def relist(self) -> None:
        response = await self.client.get(self.path)
        response.raise_for_status()
        listed = orjson.loads(response.content)
        list_rv = int(listed["metadata"]["resourceVersion"])
        if list_rv < self.rv:
            self.violation(f"list at {list_rv} is older than the {self.rv} already seen")
        if self.rv:
            self.relist_gaps.append((self.rv, list_rv))
            self.report.relists += 1
        else:
            self.first_rv = list_rv
        self.state = {(item["metadata"]["namespace"], item["metadata"]["name"]): int(item["metadata"]["resourceVersion"])
                      for item in listed["items"]}
        self.rv = list_rv

    async def run(self) -> None:
        await self.relist()
        while not self.stopping:
            params = {"watch": "1", "resourceVersion": str(self.rv), "allowWatchBookmarks": "true",
                      "timeoutSeconds": str(self.rng.randint(20, 60))}
            try:
                async with self.client.stream("GET", self.path, params=params) as response:
                    if response.status_code != 200:
                        self.violation(f"watch answered {response.status_code}")
                        await asyncio.sleep(1)
                        continue
                    async for line in response.aiter_lines():
                        if line and not self._event(orjson.loads(line)):
                            break
            except (httpx.HTTPError, asyncio.TimeoutError):
                pass  # the connection dropped: resume, as a reflector does
            if self.stopping:
                return
            self.report.resumes += 1
            if self.expired:
                self.expired = False
                await self.relist()

    def _event(self, event: dict[str, Any]) -> bool:
        """Apply one event; False when the stream must be left (410: relist)."""
        kind, obj = event["type"], event["object"]
        if kind == "ERROR":
            if obj.get("code") == 410:
                self.report.expired += 1
                self.expired = True
            else:
                self.violation(f"error event {obj.get('code')} {obj.get('message')}")
            return False
        rv = int(obj["metadata"]["resourceVersion"])
        if kind == "BOOKMARK":
            self.report.bookmarks += 1
            if rv < self.rv:
                self.violation(f"bookmark {rv} after {self.rv}")
            self.rv = max(self.rv, rv)
            return True
        key = (obj["metadata"]["namespace"], obj["metadata"]["name"])
        if rv <= self.rv:
            self.violation(f"{kind} {key} at {rv} after {self.rv} (out of order or repeated)")
        if (key, rv) in self.seen:
            self.violation(f"{kind} {key} at {rv} delivered twice")
        self.seen.add((key, rv))
        self.report.events += 1
        self.rv = rv
        if kind == "DELETED":
            self.state.pop(key, None)
        else:
            self.state[key] = rv
        return True

    def gaps(self, writes: list[tuple[Key, int]]) -> list[str]:
        """Acknowledged creates and updates in scope that it should have seen and did not."""
        missing = []
        for key, rv in writes:
            if self.namespace is not None and key[0] != self.namespace:
                continue
            if not self.first_rv < rv <= self.rv:
                continue
            if any(low < rv <= high for low, high in self.relist_gaps):
                continue
            if (key, rv) not in self.seen:
                missing.append(f"{key} at {rv}")
        return missing


class Writers:
    """Steady creates, updates and deletes over a bounded key space; records every create and
    update acknowledged (key, resourceVersion)."""

    def __init__(self, client: httpx.AsyncClient, config: SoakConfig, rng: random.Random) -> None:
        self.client = client
        self.config = config
        self.rng = rng
        self.namespaces = [f"soak-{i}" for i in range(config.namespaces)]
        self.writes: list[tuple[Key, int]] = []
        self.counts = {"create": 0, "update": 0, "delete": 0, "conflict": 0, "failed": 0}
        self.payload = "x" * config.payload_bytes

    async def run(self, until: float) -> None:
        interval = self.config.writers / self.config.write_rate
        tasks = [asyncio.create_task(self._writer(until, interval)) for _ in range(self.config.writers)]
        await asyncio.gather(*tasks)

    async def _writer(self, until: float, interval: float) -> None:
        next_at = time.monotonic()
        while time.monotonic() < until:
            next_at += interval
            try:
                await self._one()
            except httpx.TransportError:
                # The connection failed before an answer (a pooled keep-alive connection the
                # server closed as the request went out): the write may or may not have
                # happened, so it is not an acknowledged one, and a client goes on.
                self.counts["failed"] += 1
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    async def _one(self) -> None:
        namespace = self.rng.choice(self.namespaces)
        name = f"cm-{self.rng.randrange(self.config.keys)}"
        path = f"/api/v1/namespaces/{namespace}/configmaps"
        action = self.rng.choices(("update", "delete"), (9, 1))[0]
        body = {"metadata": {"name": name, "labels": {"soak": "yes"}},
                "data": {"payload": self.payload, "n": str(self.rng.random())}}
        if action == "delete":
            response = await self.client.delete(f"{path}/{name}")
            if response.status_code == 200:
                self.counts["delete"] += 1
            return
        response = await self.client.put(f"{path}/{name}", content=orjson.dumps(body),
                                         headers={"Content-Type": "application/json"})
        if response.status_code == 404:
            response = await self.client.post(path, content=orjson.dumps(body), headers={"Content-Type": "application/json"})
            verb = "create"
        else:
            verb = "update"
        if response.status_code in (200, 201):
            self.counts[verb] += 1
            self.writes.append(((namespace, name), int(orjson.loads(response.content)["metadata"]["resourceVersion"])))
        elif response.status_code == 409:
            self.counts["conflict"] += 1
        else:
            self.counts["failed"] += 1


def _rss(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(match.group(1)) * 1024 if match else 0


async def _periodically(every: float, until: float, action: Any) -> int:
    """Run ``action`` at every multiple of ``every`` before ``until`` and count the runs.

    The times are a fixed timetable, not a sleep after each run: on a loaded machine a fault can
    take seconds (a restart under 100 relisting watchers), and sleeping after it would push the
    later ones past ``until`` (a CI run saw 3 drops of the 5 due). A late run still happens, so
    the count is the schedule's, and a run that fails raises."""
    count = 0
    if every <= 0:
        return 0
    due = time.monotonic() + every
    while due < until:
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        await action()
        count += 1
        due += every
    return count


async def soak(server: ServerProcess, config: SoakConfig) -> dict[str, Any]:
    rng = random.Random(config.seed)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=server.url, timeout=httpx.Timeout(30, read=None), limits=limits) as client:
        writers = Writers(client, config, rng)
        for namespace in writers.namespaces:
            response = await client.post("/api/v1/namespaces", json={"metadata": {"name": namespace}})
            assert response.status_code in (201, 409), response.text
        scopes = [None, *writers.namespaces]
        watchers = [Watcher(client, scopes[i % len(scopes)], random.Random(rng.random())) for i in range(config.watchers)]
        watching = [asyncio.create_task(w.run()) for w in watchers]
        start = time.monotonic()
        until = start + config.duration
        samples: list[tuple[float, int]] = []

        async def sample() -> None:
            samples.append((round(time.monotonic() - start, 1), _rss(server.process.pid)))

        def control(path: str, body: dict[str, str]) -> Callable[[], Awaitable[None]]:
            """A fault as an action: POST ``body`` to fakeapi's control ``path``; a refusal raises."""
            async def act() -> None:
                (await client.post(f"/fakeapi/v1/{path}", json=body)).raise_for_status()
            return act

        compact = control("compact", {})
        drop = control("faults", {"type": "close-watches"})
        restart = control("faults", {"type": "restart"})

        await sample()
        periodic = [
            asyncio.create_task(_periodically(config.sample_every, until, sample)),
            asyncio.create_task(_periodically(config.compact_every, until, compact)),
            asyncio.create_task(_periodically(config.drop_every, until, drop)),
            asyncio.create_task(_periodically(config.restart_every, until, restart)),
        ]
        await writers.run(until)
        compactions, drops, restarts = [await task for task in periodic][1:]
        # Caught up: every watcher's objects are a fresh LIST's (or 30 s have passed).
        final = orjson.loads((await client.get("/api/v1/configmaps")).content)
        final_state = {(i["metadata"]["namespace"], i["metadata"]["name"]): int(i["metadata"]["resourceVersion"])
                       for i in final["items"]}
        expected = [{k: v for k, v in final_state.items() if w.namespace is None or k[0] == w.namespace}
                    for w in watchers]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(w.state != e for w, e in zip(watchers, expected, strict=True)):
            await asyncio.sleep(0.2)
        for w in watchers:
            w.stopping = True
        for w, wanted in zip(watchers, expected, strict=True):
            if w.state != wanted:
                differing = sorted(set(w.state.items()) ^ set(wanted.items()))[:5]
                w.violation(f"final state differs from a LIST: {differing}")
            gaps = w.gaps(writers.writes)
            if gaps:
                w.violation(f"{len(gaps)} events missed, e.g. {gaps[:3]}")
        for task in watching:
            task.cancel()
        await asyncio.gather(*watching, return_exceptions=True)
        metrics = (await client.get("/metrics")).text
        terminated = sum(float(v) for v in re.findall(r"^apiserver_terminated_watchers_total\{[^}]*\} (\S+)$", metrics, re.M))
    return summary(config, watchers, writers, samples, compactions, drops, restarts, terminated)


def summary(config: SoakConfig, watchers: list[Watcher], writers: Writers, samples: list[tuple[float, int]],
            compactions: int, drops: int, restarts: int, terminated: float) -> dict[str, Any]:
    reports = [w.report for w in watchers]
    violations = [f"watcher {i} ({r.namespace or 'all'}): {v}" for i, r in enumerate(reports) for v in r.violations]
    half = len(samples) // 2
    first = max((rss for _, rss in samples[:half]), default=0)
    second = max((rss for _, rss in samples[half:]), default=0)
    return {
        "config": asdict(config),
        "writes": dict(writers.counts),
        "events_delivered": sum(r.events for r in reports),
        "bookmarks": sum(r.bookmarks for r in reports),
        "resumes": sum(r.resumes for r in reports),
        "relists": sum(r.relists for r in reports),
        "expired_410": sum(r.expired for r in reports),
        "compactions": compactions,
        "watch_drops": drops,
        "restarts": restarts,
        "terminated_watchers": int(terminated),
        "violations": violations,
        "rss_samples": samples,
        "rss_max_first_half": first,
        "rss_max_second_half": second,
        #: Memory has levelled off: the second half's peak is within 10 % (plus 16 MiB of noise)
        #: of the first half's.
        "levelled_off": second <= first * 1.10 + 16 * 2**20,
    }


def run_soak(config: SoakConfig, workdir: Path | None = None) -> dict[str, Any]:
    """Start a server, soak it, stop it; the summary."""
    with tempfile.TemporaryDirectory() as scratch:
        with ServerProcess(workdir or Path(scratch), "--controllers", "", *config.server_args) as server:
            return asyncio.run(soak(server, config))


def markdown(result: dict[str, Any]) -> str:
    config = result["config"]
    rss = [rss for _, rss in result["rss_samples"]]
    rows = [
        ("duration", f"{config['duration']:.0f} s"), ("watchers", config["watchers"]),
        ("writes (create/update/delete; 409s, without an answer)",
         f"{result['writes']['create']}/{result['writes']['update']}/{result['writes']['delete']}; "
         f"{result['writes']['conflict']}, {result['writes']['failed']}"),
        ("events delivered", result["events_delivered"]), ("bookmarks", result["bookmarks"]),
        ("resumes / relists / 410s", f"{result['resumes']} / {result['relists']} / {result['expired_410']}"),
        ("compactions / watch drops / restarts", f"{result['compactions']} / {result['watch_drops']} / {result['restarts']}"),
        ("watchers terminated for falling behind", result["terminated_watchers"]),
        ("violations", len(result["violations"])),
        ("RSS min / max (MiB)", f"{min(rss) / 2**20:.0f} / {max(rss) / 2**20:.0f}" if rss else "-"),
        ("RSS peak first half / second half (MiB)",
         f"{result['rss_max_first_half'] / 2**20:.0f} / {result['rss_max_second_half'] / 2**20:.0f}"),
        ("levelled off", result["levelled_off"]),
    ]
    return "| | |\n|---|---|\n" + "\n".join(f"| {name} | {value} |" for name, value in rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m fakeapi.testing.soak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", default="2m")
    parser.add_argument("--watchers", type=int, default=200)
    parser.add_argument("--write-rate", type=float, default=50.0)
    parser.add_argument("--restart-every", default="60s")
    parser.add_argument("--markdown", action="store_true", help="a table instead of JSON")
    parser.add_argument("--output", type=Path, help="also write the JSON summary here")
    args = parser.parse_args(argv)
    config = SoakConfig(duration=parse_duration(args.duration), watchers=args.watchers, write_rate=args.write_rate,
                        restart_every=parse_duration(args.restart_every))
    result = run_soak(config)
    if args.output:
        args.output.write_text(json.dumps(result, indent=2))
    print(markdown(result) if args.markdown else json.dumps({k: v for k, v in result.items() if k != "rss_samples"},
                                                            indent=2))
    if result["violations"] or not result["levelled_off"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
