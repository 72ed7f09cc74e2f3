"""One request and one client as the report (``report.ClientReport``) and the detectors
(``detectors.Detectors``) see them: a ``Call`` made when the request comes in and finished when
it is over, made by a ``ClientState``, which holds its watches while they are open; and
``RequestInfo``, what they read of the request the HTTP layer parsed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..registry.request_cost import RequestCost
from .identity import ClientIdentity


class RequestKey(Protocol):
    """What the report reads of a request's metric labels: its scope (resource, namespace,
    cluster)."""

    @property
    def scope(self) -> str: ...


class RequestInfo(Protocol):
    """What the report and the detectors read of a resource request. The HTTP layer's
    ``RequestInfo`` is one; clients/ lies below the HTTP layer, so it names the shape it reads
    rather than importing the class."""

    verb: str
    namespace: str  # "" for none
    name: str  # "" for none
    group_resource: str  # plural[.group][/subresource]
    key: RequestKey

    def query_value(self, name: str) -> str: ...


#: How much of a request an example keeps.
MAX_EXAMPLE = 300


class Call:
    """One request as the report and the detectors see it: made by ``ClientReport.begin``
    when the request comes in, finished by ``ClientReport.end``."""

    __slots__ = ("client", "source", "info", "cost", "request_bytes", "started_at", "status", "seconds", "scope")

    def __init__(self, client: ClientState, source: object, info: RequestInfo, cost: RequestCost,
                 request_bytes: int, started_at: float, scope: Mapping[str, Any]) -> None:
        self.client = client
        #: Who sent it on which connection (lock-step counts sources, not names).
        self.source = source
        self.info = info
        self.cost = cost
        self.request_bytes = request_bytes
        self.started_at = started_at  # wall clock
        self.status = 0
        self.seconds = 0.0  # serving time; a watch's lifetime
        self.scope = scope

    def example(self) -> str:
        """The request as a line of text: method, path and query."""
        scope = self.scope
        query = scope.get("query_string", b"").decode("latin-1")
        return f"{scope.get('method', '')} {scope.get('path', '')}{'?' + query if query else ''}"[:MAX_EXAMPLE]


class ClientState:
    """One client: who it is, when it was seen, its watches now open."""

    __slots__ = ("identity", "name", "first_seen", "last_seen", "open_watches")

    def __init__(self, identity: ClientIdentity, now: float) -> None:
        self.identity = identity
        self.name = identity.name
        self.first_seen = now
        self.last_seen = now
        self.open_watches: set[Call] = set()
