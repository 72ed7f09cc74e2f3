"""Who sent the request being served (``genericapirequest.UserFrom(ctx)``), for the few strategies
that read it (a CertificateSigningRequest records its requester). The HTTP layer sets a function
that finds the user (``requesting``), so authentication runs only for a request that asks."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Any

#: ``user.Info`` as authentication/v1's ``UserInfo`` JSON: username, uid, groups, extra.
User = dict[str, Any]

_finder: contextvars.ContextVar[Callable[[], User] | None] = contextvars.ContextVar("requester", default=None)


@contextlib.contextmanager
def requesting(find: Callable[[], User]) -> Iterator[None]:
    """Serve a request whose user ``find`` returns."""
    token = _finder.set(find)
    try:
        yield
    finally:
        _finder.reset(token)


def current_user() -> User | None:
    """The user of the request being served; None outside one (a write made by fakeapi itself)."""
    find = _finder.get()
    return None if find is None else find()
