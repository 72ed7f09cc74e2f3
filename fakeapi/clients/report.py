"""``ClientReport``: who costs the server what, and the detectors that fired.

The HTTP layer calls ``begin`` when a resource request comes in and ``end`` when it is over (a
watch: when it ends); both run on the server's loop, so nothing here locks. Per request that is
a dict lookup for the client (its User-Agent or client header seen before), one for the usage
cell, a few additions, and the detectors' checks for the request's verb. Watches cost nothing
per event here: the watcher counts the events it writes and the report reads that count.

Bounds: at most ``max_clients`` clients by name (later ones are counted as ``other``), the
``History`` cell budget, the detectors' tracked keys, ``max_findings`` findings.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..registry.request_cost import RequestCost
from .calls import Call, ClientState, RequestInfo
from .detectors import DetectorConfig, Detectors, Findings
from .identity import ClientIdentity, identify, named
from .usage import FIELDS, History, Usage, UsageKey, summed

if TYPE_CHECKING:
    from prometheus_client.core import Metric


OTHER = "other"
DEFAULT_MAX_CLIENTS = 100
#: How a report can order clients and their rows: by what they cost.
SORT_KEYS: dict[str, Callable[[Usage], float]] = {
    "time": lambda u: u.serving_seconds,
    "requests": lambda u: u.requests,
    "bytes": lambda u: u.request_bytes + u.response_bytes,
    "objects": lambda u: u.objects_examined,
    "events": lambda u: u.watch_events,
    "watches": lambda u: u.watches_opened,
    "conflicts": lambda u: u.conflicts,
}


@dataclass(frozen=True, slots=True)
class ClientReportConfig:
    #: Clients told apart by name; requests of any further client count as ``other``.
    max_clients: int = DEFAULT_MAX_CLIENTS
    #: A request header that names the client (``fakeapi serve --client-header``); "" = the User-Agent.
    client_header: str = ""
    #: History: slices of this many seconds, kept this long, at most ``max_cells`` cells in all.
    slice_seconds: float = 10.0
    span_seconds: float = 3600.0
    max_cells: int = 20_000
    max_findings: int = 500
    detectors: DetectorConfig = field(default_factory=DetectorConfig)


class ClientReport:
    def __init__(self, config: ClientReportConfig | None = None, clock: Callable[[], float] = time.time) -> None:
        self.config = config = config or ClientReportConfig()
        self._clock = clock
        self._header = config.client_header.lower().encode("latin-1")
        self.clients: dict[str, ClientState] = {}
        #: Raw (User-Agent, client header) -> client; cleared when it outgrows the client cap.
        self._by_header: dict[tuple[bytes, bytes], ClientState] = {}
        self.history = History(config.slice_seconds, config.span_seconds, config.max_cells)
        self.findings = Findings(config.max_findings)
        self.detectors = Detectors(config.detectors, self.findings)
        self.started_at = clock()

    # ----------------------------------------------------------------- the hot path

    def begin(self, scope: Mapping[str, Any], info: RequestInfo, cost: RequestCost) -> Call:
        """A resource request came in: whose it is. A watch counts as opened now."""
        user_agent = named_by = b""
        request_bytes = 0
        header = self._header
        for key, value in scope["headers"]:
            if key == b"user-agent":
                user_agent = value
            elif key == b"content-length":
                request_bytes = int(value) if value.isdigit() else 0
            elif key == header:
                named_by = value
        now = self._clock()
        client = self._by_header.get((user_agent, named_by))
        if client is None:
            client = self._identify(user_agent, named_by, now)
        client.last_seen = now
        call = Call(client, (client.name, scope.get("client")), info, cost, request_bytes, now, scope)
        if info.verb == "watch":
            self.detectors.watch_opened(call)
            client.open_watches.add(call)
            usage = self.history.cell(UsageKey(client.name, "watch", info.group_resource, info.key.scope), now)
            usage.requests += 1
            usage.watches_opened += 1
            usage.request_bytes += request_bytes
        return call

    def end(self, call: Call, status: int, seconds: float) -> None:
        """The request is over (a watch: it ended), after ``seconds``, with ``status``."""
        now = call.started_at + seconds
        call.status = status
        call.seconds = seconds
        info, cost = call.info, call.cost
        usage = self.history.cell(UsageKey(call.client.name, info.verb, info.group_resource, info.key.scope), now)
        if info.verb == "watch":
            call.client.open_watches.discard(call)
            usage.watch_seconds += seconds
            if cost.watcher is not None:
                usage.watch_events += cost.watcher.events_written
        else:
            usage.requests += 1
            usage.request_bytes += call.request_bytes
            usage.serving_seconds += seconds
            usage.objects_returned += cost.returned
            usage.objects_examined += cost.examined
            usage.store_reads += cost.from_store
        usage.response_bytes += cost.response_bytes
        if status == 409:
            usage.conflicts += 1
        elif status == 410 or cost.expired:
            usage.expired += 1
        if cost.noop_write:
            usage.noop_writes += 1
        self.detectors.after(call, now)

    def _identify(self, user_agent: bytes, named_by: bytes, now: float) -> ClientState:
        agent = user_agent.decode("latin-1")
        identity = named(named_by.decode("latin-1"), agent) if named_by else identify(agent)
        client = self.clients.get(identity.name)
        if client is None:
            if len(self.clients) >= self.config.max_clients:
                client = self.clients.get(OTHER)
                if client is None:
                    client = self.clients[OTHER] = ClientState(ClientIdentity(OTHER, "", ""), now)
            else:
                client = self.clients[identity.name] = ClientState(identity, now)
        if len(self._by_header) >= 4 * self.config.max_clients:
            self._by_header.clear()
        self._by_header[(user_agent, named_by)] = client
        return client

    # ----------------------------------------------------------------- reading

    def usage(self, since: float | None = None) -> dict[UsageKey, Usage]:
        """Usage per cell over the last ``since`` seconds (None: since the start), with the
        events and bytes so far of the watches still open."""
        now = self._clock()
        cutoff = None if since is None else now - since
        cells = summed(self.history.cells_since(cutoff))
        for client in self.clients.values():
            for call in client.open_watches:
                info = call.info
                key = UsageKey(client.name, "watch", info.group_resource, info.key.scope)
                usage = cells.get(key)
                if usage is None:
                    usage = cells[key] = Usage()
                usage.response_bytes += call.cost.response_bytes
                if call.cost.watcher is not None:
                    usage.watch_events += call.cost.watcher.events_written
        return cells

    def report(self, since: float | None = None, sort: str = "time") -> dict[str, Any]:
        """The report as JSON data: clients by cost (``sort``: one of ``SORT_KEYS``), each with
        its rows per verb, resource and scope and the detectors that fired for it; the findings
        with their evidence; the detectors' knobs; the bounds in force."""
        if sort not in SORT_KEYS:
            raise ValueError(f"unknown sort {sort!r}; one of {', '.join(SORT_KEYS)}")
        now = self._clock()
        self.detectors.close_slots(now)
        cutoff = None if since is None else now - since
        by_client: dict[str, dict[UsageKey, Usage]] = {}
        for key, usage in self.usage(since).items():
            by_client.setdefault(key.client, {})[key] = usage
        findings = [f for f in self.findings.by_key.values() if cutoff is None or f.last_at >= cutoff]
        findings.sort(key=lambda f: f.last_at, reverse=True)
        key = SORT_KEYS[sort]

        def order(usage: Usage) -> tuple[float, float, float]:  # ties (watches: no serving time) by bytes
            return key(usage), usage.response_bytes, usage.requests

        clients = []
        for name, cells in by_client.items():
            state = self.clients.get(name)
            total = Usage()
            for usage in cells.values():
                total.add(usage)
            rows = sorted(cells.items(), key=lambda item: order(item[1]), reverse=True)
            clients.append((order(total), {
                "client": name,
                "userAgent": state.identity.user_agent if state else "",
                "version": state.identity.version if state else "",
                "firstSeen": state.first_seen if state else None,
                "lastSeen": state.last_seen if state else None,
                "openWatches": len(state.open_watches) if state else 0,
                "totals": total.to_json(),
                "requests": [{"verb": key.verb, "resource": key.resource, "scope": key.scope, **usage.to_json()}
                             for key, usage in rows],
                "findings": sorted({f.detector for f in findings if name in f.clients}),
            }))
        clients.sort(key=lambda item: item[0], reverse=True)
        config = self.config
        return {
            "kind": "ClientReport",
            "generatedAt": now,
            "since": since,
            "from": max(cutoff, self.started_at) if cutoff is not None else self.started_at,
            "sort": sort,
            "clients": [client for _, client in clients],
            "findings": [f.to_json() for f in findings],
            "detectors": config.detectors.knobs(),
            "limits": {
                "maxClients": config.max_clients, "clientHeader": config.client_header,
                "historySliceSeconds": config.slice_seconds, "historyFrom": self.history.oldest,
                "maxFindings": config.max_findings, "droppedFindings": self.findings.dropped,
            },
        }

    # ----------------------------------------------------------------- Prometheus

    def collect(self) -> Iterator[Metric]:
        """``fakeapi_client_*``: the totals per client, verb and resource (cardinality bounded
        by the client cap and the served resources), open watches, findings per detector."""
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily  # at the first scrape

        labels = ["client", "verb", "resource"]
        families = {name: CounterMetricFamily(f"fakeapi_client_{name}", _HELP[name], labels=labels)
                    for name in FIELDS}
        totals: dict[tuple[str, str, str], Usage] = {}
        for key, usage in self.usage().items():
            total = totals.get(key[:3])
            if total is None:
                total = totals[key[:3]] = Usage()
            total.add(usage)
        for label_values, usage in totals.items():
            for name, family in families.items():
                family.add_metric(list(label_values), getattr(usage, name))
        yield from families.values()
        open_watches = GaugeMetricFamily("fakeapi_client_open_watches", "Watches open now, per client and resource.",
                                         labels=["client", "resource"])
        counts: dict[tuple[str, str], int] = {}
        for client in self.clients.values():
            for call in client.open_watches:
                counts[(client.name, call.info.group_resource)] = counts.get((client.name, call.info.group_resource), 0) + 1
        for (client_name, resource), n in counts.items():
            open_watches.add_metric([client_name, resource], n)
        yield open_watches
        fired = CounterMetricFamily("fakeapi_client_detections", "Times a detector fired, per client and detector.",
                                    labels=["client", "detector"])
        per_detector: dict[tuple[str, str], int] = {}
        for finding in self.findings.by_key.values():
            for client_name in finding.clients:
                per_detector[(client_name, finding.detector)] = per_detector.get((client_name, finding.detector), 0) \
                    + finding.count
        for labels_values, n in per_detector.items():
            fired.add_metric(list(labels_values), n)
        yield fired


_HELP = {
    "requests": "Requests, per client, verb and resource (a watch counts when it opens).",
    "serving_seconds": "Seconds spent answering requests other than watches.",
    "request_bytes": "Request body bytes (Content-Length).",
    "response_bytes": "Response body bytes (watch streams included).",
    "objects_returned": "Objects GETs and LISTs answered with.",
    "objects_examined": "Objects GETs and LISTs went through to answer (selectors make it more than returned).",
    "store_reads": "Reads served from the store rather than the watch cache.",
    "watches_opened": "Watches opened.",
    "watch_seconds": "Lifetime of ended watches, in seconds.",
    "watch_events": "Watch events (bookmarks included) written to watch streams.",
    "expired": "410 Gone answers, a watch's in-stream 410 Expired included.",
    "conflicts": "409 Conflict answers.",
    "noop_writes": "Writes that changed nothing (no store write, same resourceVersion, no event).",
}
