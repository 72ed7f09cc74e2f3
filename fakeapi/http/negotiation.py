"""Which representation a response is written in, from the Accept header (kube's
``endpoints/handlers/negotiation``, JSON only).

Media ranges are tried in order of their ``q`` weight (then as written): protobuf and other
encodings fakeapi does not write are passed over, as kube passes over what it cannot serve; a
JSON range may ask for a conversion with ``as``/``g``/``v`` (``Table`` for anything,
``PartialObjectMetadata`` for an object or a watch, ``PartialObjectMetadataList`` for a list).
Nothing acceptable is 406.
"""

from __future__ import annotations

from typing import NamedTuple

from ..machinery.status import not_acceptable
from ..registry.views import PARTIAL_OBJECT_METADATA, MetadataView


class TableRequest(NamedTuple):
    """``as=Table``: the handler builds the per-request ``TableView`` (it needs the resource)."""

    api_version: str  # meta.k8s.io/v1 or meta.k8s.io/v1beta1

_JSON_RANGES = frozenset(("application/json", "application/*", "*/*"))
_META_GROUP = "meta.k8s.io"
_META_VERSIONS = frozenset(("v1", "v1beta1"))
#: What a client may name in ``as=``, by target: a single object or watch, or a list.
_VIEWS = {
    "object": {"PartialObjectMetadata": PARTIAL_OBJECT_METADATA},
    "list": {"PartialObjectMetadataList": PARTIAL_OBJECT_METADATA},
}
_ACCEPTED = ("application/json", "application/json;as=Table;g=meta.k8s.io;v=v1",
             "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
             "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")


def _media_ranges(accept: str) -> list[tuple[str, dict[str, str]]]:
    ranges = []
    for position, text in enumerate(accept.split(",")):
        media_type, *raw_params = text.split(";")
        params = {}
        for raw in raw_params:
            name, _, value = raw.partition("=")
            params[name.strip().lower()] = value.strip()
        try:
            weight = float(params.pop("q", "1"))
        except ValueError:
            weight = 1.0
        ranges.append((-weight, position, media_type.strip().lower(), params))
    return [(media_type, params) for _, _, media_type, params in sorted(ranges)]


def response_view(accept: str | None, target: str) -> MetadataView | TableRequest | None:
    """The view a GET/WATCH (``target`` "object") or LIST (``target`` "list") answers in:
    ``None`` for the object itself. Raises 406 when no media range can be served."""
    if not accept:
        return None
    for media_type, params in _media_ranges(accept):
        if media_type not in _JSON_RANGES:
            continue
        conversion = params.get("as")
        if conversion is None:
            return None
        if params.get("g") == _META_GROUP and params.get("v") in _META_VERSIONS:
            if conversion == "Table":
                return TableRequest(f"{_META_GROUP}/{params['v']}")
            view = _VIEWS[target].get(conversion)
            if view is not None:
                return view
    raise not_acceptable(accepted=_ACCEPTED)
