"""kube-apiserver's self-defence in front of the resource handlers, as its generic filter chain
applies it (``endpoints/filters/request_deadline.go``, ``server/filters/timeout.go``,
``server/filters/maxinflight.go``); ``MetricsMiddleware`` runs it for every resource request,
from the request's ``RequestInfo``.

* Deadline: a request that is not long-running (a watch is) must finish within
  ``--request-timeout`` (60 s), or the shorter ``timeout`` its query asks for (a Go duration; a
  malformed one is a 400 before anything else). Past it the answer is kube's 504 (a Status
  without kind, sent as ``text/plain``), or, if the answer had started, the connection is cut, as
  kube's timeout handler panics then. Only awaits can be interrupted: a handler running on the
  event loop finishes its step first. A deadline already past when the request arrives
  (``timeout=1ns``) answers 504 at once.
* In-flight limits (``--max-requests-inflight``, ``--max-mutating-requests-inflight``; 0: none, the
  default, as kube 1.35 runs API Priority and Fairness instead, which queues rather than refuses):
  a request over its kind's limit (read-only: get, list; mutating: the rest; watches and other
  long-running requests are not counted) is refused with 429 ``Too many requests, please try
  again later.`` as plain text and ``Retry-After: 1``, unless its user is in ``system:masters``,
  whom kube never refuses. Counting costs nothing more: the metrics already count requests in
  flight per kind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import orjson
from starlette.responses import Response
from starlette.types import Send

from ..machinery.golang import go_parse_duration
from ..machinery.status import bad_request

#: kube-apiserver's --request-timeout default.
DEFAULT_REQUEST_TIMEOUT = 60.0
#: How long an idle keep-alive connection is kept (kube's ``SecureServingInfo`` gives Go's
#: ``http.Server`` an IdleTimeout of 90 s). uvicorn's own default, 5 s, closes pooled connections
#: so often that a client sending on one as it closes (a reset its write never gets an answer
#: for) becomes a regular event.
IDLE_TIMEOUT = 90.0
#: ``user.SystemPrivilegedGroup``: never refused by the in-flight limits.
PRIVILEGED_GROUP = "system:masters"
_PLAIN_TEXT = (b"content-type", b"text/plain; charset=utf-8")
_NO_SNIFF = (b"x-content-type-options", b"nosniff")
_TOO_MANY_REQUESTS = b"Too many requests, please try again later.\n"
#: ``tooManyRequests``' Retry-After (``retryAfter`` in maxinflight.go).
RETRY_AFTER = b"1"
#: What kube's timeout filter writes: ``json.NewEncoder(w).Encode(&status)`` of the Timeout
#: Status (no TypeMeta: it is not run through a serializer), with a trailing newline.
_TIMEOUT_BODY = orjson.dumps({
    "metadata": {}, "status": "Failure", "message": "Timeout: request did not complete within the allotted timeout",
    "reason": "Timeout", "details": {}, "code": 504}) + b"\n"


@dataclass(slots=True)
class Limits:
    """The server's limits (see the module doc); 0 disables one."""

    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_requests_inflight: int = 0
    max_mutating_requests_inflight: int = 0

    def inflight_limit(self, mutating: bool) -> int:
        return self.max_mutating_requests_inflight if mutating else self.max_requests_inflight


def request_timeout(timeout: str, maximum: float) -> float:
    """The seconds a non-long-running request has (``withRequestDeadline``): ``maximum`` (0: no
    limit), or what its ``timeout`` query parameter asks (its first value, "" for none) when it
    is positive and shorter; a ``timeout`` Go cannot parse is the 400 kube sends."""
    if not timeout:
        return maximum or math.inf
    try:
        asked = go_parse_duration(timeout) / 1e9
    except ValueError as err:
        raise bad_request(f"invalid timeout specified in the request URL - {err}") from None
    if asked > 0 and (not maximum or asked < maximum):
        return asked
    return maximum or math.inf


async def send_timeout(send: Send) -> None:
    """kube's 504 once the deadline passed before the answer started."""
    await send({"type": "http.response.start", "status": 504,
                "headers": [_PLAIN_TEXT, _NO_SNIFF, (b"content-length", str(len(_TIMEOUT_BODY)).encode())]})
    await send({"type": "http.response.body", "body": _TIMEOUT_BODY, "more_body": False})


def timeout_response() -> Response:
    """kube's 504 (see ``send_timeout``), for a handler that keeps the deadline itself."""
    return Response(_TIMEOUT_BODY, status_code=504, media_type=_PLAIN_TEXT[1].decode(),
                    headers={_NO_SNIFF[0].decode(): _NO_SNIFF[1].decode()})


async def send_too_many_requests(send: Send) -> None:
    """``tooManyRequests``: ``http.Error(w, "Too many requests, please try again later.", 429)``
    with ``Retry-After``."""
    await send({"type": "http.response.start", "status": 429, "headers": [
        _PLAIN_TEXT, _NO_SNIFF, (b"retry-after", RETRY_AFTER), (b"content-length", str(len(_TOO_MANY_REQUESTS)).encode())]})
    await send({"type": "http.response.body", "body": _TOO_MANY_REQUESTS, "more_body": False})


