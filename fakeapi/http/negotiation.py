"""Which representation a response is written in, from the Accept header, as kube-apiserver
negotiates it (``endpoints/handlers/negotiation``, ``github.com/munnerz/goautoneg``).

Media ranges are sorted as goautoneg sorts them (by ``q``, then concrete types before wildcards,
with its quirky comparison and Go's insertion sort for short lists), then each is matched
against the server's media types in order — JSON, YAML, protobuf — and the first the endpoint
allows wins. A range may ask for a conversion with ``as``/``g``/``v``: ``Table`` (JSON or YAML
only), ``PartialObjectMetadata`` and ``PartialObjectMetadataList`` of ``meta.k8s.io`` v1 or
v1beta1 (any media type), or an aggregated discovery document on the discovery endpoints.
Custom resources are never written in protobuf (their handler's standard serializers are JSON
and YAML), but their metadata and their errors are. Nothing acceptable is 406. YAML has no
stream serializer: a watch that negotiates YAML is 406 too, once it has started.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..machinery.status import Details, StatusError, not_acceptable
from ..registry.views import META_GROUP, META_VERSIONS

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
#: The server's media types in kube's order (``codec_factory.go``: JSON, YAML, protobuf).
SERVER_MEDIA_TYPES = (JSON, YAML, PROTOBUF)
#: ``stream=watch`` is allowed for the media types that have a stream serializer.
_STREAMING = frozenset((JSON, PROTOBUF))
#: What a watch can be written in (``MediaTypesForSerializer``'s stream media types).
STREAM_MEDIA_TYPES = tuple(f"{m};stream=watch" for m in SERVER_MEDIA_TYPES if m in _STREAMING)
#: The media types fakeapi writes.
_WRITTEN = frozenset((JSON, YAML, PROTOBUF))
#: The media types aggregated discovery documents are written in.
_DISCOVERY = frozenset((JSON, PROTOBUF))
DISCOVERY_GROUP = "apidiscovery.k8s.io"


class Clause(NamedTuple):
    type: str
    subtype: str
    q: float
    params: dict[str, str]


def parse_accept(header: str) -> list[Clause]:
    """goautoneg's ``ParseAccept``: clauses without a ``/`` (other than ``*``) and parameters
    without one ``=`` are dropped; ``q`` parses as a float32 (0 when malformed)."""
    clauses: list[Clause] = []
    for part in header.split(","):
        part = part.strip(" ")
        media_range, _, raw_params = part.partition(";")
        main, slash, rest = media_range.partition("/")
        main = main.strip(" ")
        if not slash:
            if main != "*":
                continue
            subtype = "*"
        else:
            if "/" in rest:
                continue
            subtype = rest.strip(" ")
        q, params = 1.0, {}
        if raw_params:
            for raw in raw_params.split(";"):
                name, equals, value = raw.partition("=")
                if not equals or "=" in value:
                    continue
                name = name.strip(" ")
                if name == "q":
                    q = _go_parse_float(value)
                else:
                    params[name] = value.strip(" ")
        clauses.append(Clause(main, subtype, q, params))
    # Go's sort.Sort of fewer than 13 elements is an insertion sort: reproduce its order.
    for i in range(1, len(clauses)):
        j = i
        while j > 0 and _less(clauses[j], clauses[j - 1]):
            clauses[j], clauses[j - 1] = clauses[j - 1], clauses[j]
            j -= 1
    return clauses if len(clauses) < 13 else sorted(clauses, key=lambda c: -c.q)


def _less(a: Clause, b: Clause) -> bool:
    """goautoneg's ``Less``: not a strict order, which is why the sort is reproduced exactly."""
    if a.q > b.q:
        return True
    if a.type != "*" and b.type == "*":
        return True
    return a.subtype != "*" and b.subtype == "*"


def _go_parse_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


@dataclass(frozen=True, slots=True)
class Target:
    """A conversion asked for with ``as``/``g``/``v``."""

    group: str
    version: str
    kind: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


class Negotiated(NamedTuple):
    media_type: str  # JSON, YAML or PROTOBUF
    convert: Target | None


def _matches(clause: Clause, media_type: str) -> bool:
    main, subtype = media_type.split("/")
    return (clause.type == main and clause.subtype in (subtype, "*")) or (clause.type == "*" and clause.subtype == "*")


def _options(clause: Clause, media_type: str) -> tuple[bool, Target | None]:
    """``acceptMediaTypeOptions`` without the endpoint's say: whether the stream and server
    version parameters allow the media type, and the conversion asked for."""
    params = clause.params
    stream = params.get("stream", "")
    if stream and (media_type not in _STREAMING or stream != "watch"):
        return False, None
    server_version = params.get("sv", "")
    if server_version and server_version != "v1":
        return False, None
    if not {"as", "g", "v"} & params.keys():
        return True, None
    return True, Target(params.get("g", ""), params.get("v", ""), params.get("as", ""))


METADATA_KINDS = ("PartialObjectMetadata", "PartialObjectMetadataList")


#: What kube's routes produce (go-restful's ``Produces``), which its 406 lists: a collection's
#: GET (list and watch) also produces the watch streams.
ROUTE_MEDIA_TYPES = SERVER_MEDIA_TYPES
COLLECTION_GET_MEDIA_TYPES = (*SERVER_MEDIA_TYPES, *STREAM_MEDIA_TYPES)


def check_route_accepts(accept: str | None, produces: tuple[str, ...] = ROUTE_MEDIA_TYPES) -> None:
    """go-restful's route selection, before kube's own negotiation: unless some range, its
    parameters cut off, is ``*/*`` or exactly one of the route's media types, the request is
    406 with go-restful's message (``application/*`` and ``text/html`` are such requests)."""
    if not accept:
        return
    for text in accept.split(","):
        media_type = text.split(";", 1)[0].strip(" ")
        if media_type == "*/*" or media_type in produces:
            return
    raise StatusError(406, "NotAcceptable", "406: Not Acceptable\n\nAvailable representations: " + ", ".join(produces),
                      Details())


def negotiate(accept: str | None, *, custom: bool = False, tables: bool = True) -> Negotiated:
    """A resource endpoint's output (kube's ``RequestScope.AllowsMediaTypeTransform``); 406
    when nothing is acceptable. ``custom``: a custom resource's endpoint; ``tables``: whether
    its storage converts to a Table (kube's ``RequestScope.TableConvertor``: the create-only
    storages do not, so a Table asked of them is not acceptable)."""
    if not accept:
        return Negotiated(JSON, None)
    for clause in parse_accept(accept):
        for media_type in SERVER_MEDIA_TYPES:
            if not _matches(clause, media_type):
                continue
            allowed, convert = _options(clause, media_type)
            if not allowed or media_type not in _WRITTEN:
                continue
            if convert is None:
                if custom and media_type == PROTOBUF:
                    continue
                return Negotiated(media_type, None)
            if convert.group != META_GROUP or convert.version not in META_VERSIONS:
                continue
            if convert.kind == "Table" and tables and media_type != PROTOBUF:
                return Negotiated(media_type, convert)
            if convert.kind in METADATA_KINDS:  # either name is accepted here; the wrong one fails later
                return Negotiated(media_type, convert)
    raise not_acceptable(accepted=SERVER_MEDIA_TYPES)


def check_streamable(media_type: str) -> None:
    """kube's ``NegotiateOutputMediaTypeStream``, once a watch has started: the media type the
    request negotiated (as ``negotiate`` did, whose own 406 came first) must have a stream
    serializer, else 406 naming the stream media types; kube looks for no other, so an Accept
    that prefers YAML is refused even when it lists JSON too."""
    if media_type not in _STREAMING:
        raise not_acceptable(accepted=STREAM_MEDIA_TYPES)


def negotiate_plain(accept: str | None) -> str:
    """The media type of an endpoint that converts nothing (kube's default endpoint
    restrictions: Status errors, the legacy discovery documents); 406 when none is acceptable."""
    if not accept:
        return JSON
    for clause in parse_accept(accept):
        for media_type in SERVER_MEDIA_TYPES:
            if _matches(clause, media_type):
                allowed, convert = _options(clause, media_type)
                if allowed and convert is None and media_type in _WRITTEN:
                    return media_type
    raise not_acceptable(accepted=SERVER_MEDIA_TYPES)


def error_media_type(accept: str | None) -> str:
    """The media type of a Status error (``ErrorNegotiated``); JSON when none is acceptable
    (``WriteRawJSON``)."""
    try:
        return negotiate_plain(accept)
    except StatusError:
        return JSON


def negotiate_discovery(accept: str | None) -> Negotiated | None:
    """The aggregated discovery document asked for (``apidiscovery.k8s.io/v2``
    ``APIGroupDiscoveryList``, kube 1.35 having removed v2beta1), or None for the legacy
    documents (kube's ``WrappedHandler``)."""
    if not accept:
        return None
    for clause in parse_accept(accept):
        for media_type in SERVER_MEDIA_TYPES:
            if _matches(clause, media_type) and media_type in _DISCOVERY:
                allowed, convert = _options(clause, media_type)
                if allowed and convert == Target(DISCOVERY_GROUP, "v2", "APIGroupDiscoveryList"):
                    return Negotiated(media_type, convert)
    return None
