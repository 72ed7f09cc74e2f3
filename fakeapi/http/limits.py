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
  (``timeout=1ns``) answers 504 at once. ``Deadlines`` keeps them, as ``asyncio.timeout`` would.
* In-flight limits (``--max-requests-inflight``, ``--max-mutating-requests-inflight``; 0: none, the
  default, as kube 1.35 runs API Priority and Fairness instead, which queues rather than refuses):
  a request over its kind's limit (read-only: get, list; mutating: the rest; watches and other
  long-running requests are not counted) is refused with 429 ``Too many requests, please try
  again later.`` as plain text and ``Retry-After: 1``, unless its user is in ``system:masters``,
  whom kube never refuses. Counting costs nothing more: the metrics already count requests in
  flight per kind.
"""

from __future__ import annotations

import asyncio
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


class Deadlines:
    """Cancels the task of a request still running at its deadline, as an ``asyncio.timeout``
    around the request would (its ``CancelledError`` then turned into ``TimeoutError`` by
    ``ended``), for a fraction of its cost: not a timer per request (a ``TimerHandle`` made,
    pushed on the loop's heap, cancelled), but one per timeout. Requests given the same timeout
    reach their deadlines in the order they started (nearly every request has
    ``--request-timeout``'s), so they wait in one insertion-ordered dict whose first entry is
    the next to expire, under a timer set for that entry's deadline; a request that ends only
    leaves the dict. When the timer fires it cancels the requests past their deadline and is set
    for the first still waiting (a timeout's group goes once none waits)."""

    def __init__(self) -> None:
        #: The loop the groups' timers run on: a request served on another (a test client may
        #: start one per request) starts afresh, so that each group's requests share its timer's.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._groups: dict[float, _TimeoutGroup] = {}

    def wait(self, timeout: float, remaining: float) -> _Waiting:
        """The current task, a request given ``timeout``, is cancelled in ``remaining`` seconds
        unless it ends first (``ended``)."""
        task = asyncio.current_task()
        assert task is not None
        loop = task.get_loop()
        if loop is not self._loop:
            self._loop, self._groups = loop, {}
        group = self._groups.get(timeout)
        if group is None:
            group = self._groups[timeout] = _TimeoutGroup()
        waiting = _Waiting(group, loop.time() + remaining, task)
        group.waiting[waiting] = None
        if group.timer is None:
            group.timer = loop.call_at(waiting.deadline, self._expire, group, timeout)
        return waiting

    @staticmethod
    def ended(waiting: _Waiting, error: BaseException | None) -> None:
        """The request ``waiting`` stands for has ended, with ``error`` if it raised one: a
        ``CancelledError`` of its expired deadline (none cancelled its task besides) is raised as
        ``TimeoutError`` (``asyncio.timeout``'s rule)."""
        if not waiting.expired:
            del waiting.group.waiting[waiting]
        elif waiting.task.uncancel() <= waiting.cancelling and isinstance(error, asyncio.CancelledError):
            raise TimeoutError from error

    def _expire(self, group: _TimeoutGroup, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        waiting = group.waiting
        while waiting:
            first = next(iter(waiting))
            if first.deadline > now:
                group.timer = loop.call_at(first.deadline, self._expire, group, timeout)
                return
            del waiting[first]
            first.expired = True
            first.task.cancel()
        if self._groups.get(timeout) is group:
            del self._groups[timeout]


class _TimeoutGroup:
    """The requests waiting with one timeout, first to expire first, and the timer set for the first's deadline."""

    __slots__ = ("waiting", "timer")

    def __init__(self) -> None:
        self.waiting: dict[_Waiting, None] = {}
        self.timer: asyncio.TimerHandle | None = None


class _Waiting:
    """A request waiting for its deadline (``Deadlines.wait``)."""

    __slots__ = ("group", "deadline", "task", "cancelling", "expired")

    def __init__(self, group: _TimeoutGroup, deadline: float, task: asyncio.Task[object]) -> None:
        self.group = group
        self.deadline = deadline  # in the loop's time
        self.task = task
        self.cancelling = task.cancelling()  # the cancellations asked before the request's own
        self.expired = False
