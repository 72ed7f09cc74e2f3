"""Who sent the request being served (``genericapirequest.UserFrom(ctx)``), for the few strategies
that read it (a CertificateSigningRequest records its requester). The HTTP layer sets a function
that finds the user (``requesting``), so authentication runs only for a request that asks."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

#: ``user.Info`` as authentication/v1's ``UserInfo`` JSON: username, uid, groups, extra.
User = dict[str, Any]

_finder: contextvars.ContextVar[Callable[[], User] | None] = contextvars.ContextVar("requester", default=None)


def requesting(find: Callable[[], User]) -> _Requesting:
    """Serve a request whose user ``find`` returns (``with requesting(find)``)."""
    return _Requesting(find)


class _Requesting:
    """``requesting``'s context manager: a class, as every request opens one, and a generator's
    ``contextlib.contextmanager`` costs three times as much."""

    __slots__ = ("_find", "_token")

    def __init__(self, find: Callable[[], User]) -> None:
        self._find = find

    def __enter__(self) -> None:
        self._token = _finder.set(self._find)

    def __exit__(self, *_exc: object) -> None:
        _finder.reset(self._token)


def current_user() -> User | None:
    """The user of the request being served; None outside one (a write made by fakeapi itself)."""
    find = _finder.get()
    return None if find is None else find()
