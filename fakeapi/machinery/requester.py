"""Who sent the request being served (``genericapirequest.UserFrom(ctx)``), for the few strategies
that read it (a CertificateSigningRequest records its requester). The HTTP layer sets a function
that finds the user (``requesting``), so authentication runs only for a request that asks."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from .context_binding import Binding

#: ``user.Info`` as authentication/v1's ``UserInfo`` JSON: username, uid, groups, extra.
User = dict[str, Any]

_finder: contextvars.ContextVar[Callable[[], User] | None] = contextvars.ContextVar("requester", default=None)


def requesting(find: Callable[[], User]) -> Binding[Callable[[], User]]:
    """Serve a request whose user ``find`` returns (``with requesting(find)``)."""
    return Binding(_finder, find)


def current_user() -> User | None:
    """The user of the request being served; None outside one (a write made by fakeapi itself)."""
    find = _finder.get()
    return None if find is None else find()
