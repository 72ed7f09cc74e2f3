"""What admission webhooks are told of a request besides the object: the user and the options
(``admission.Attributes``'s ``GetUserInfo`` and ``GetOperationOptions``), set by the HTTP layer
for the write it serves and read where admission runs, deep in the write."""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]


@dataclass(frozen=True)
class WebhookRequest:
    """``user``: authentication/v1 ``UserInfo``; ``options``: the operation's options object
    (``CreateOptions``, ``UpdateOptions``, ``DeleteOptions``) as kube encodes it."""

    user: Json
    options: Json
    dry_run: bool = False


#: The request being served, None for a write made inside the server.
current: contextvars.ContextVar[WebhookRequest | None] = contextvars.ContextVar("webhook_request", default=None)


def write_options(kind: str, query: Mapping[str, str], dry_run: Iterable[str] = ()) -> Json:
    """``CreateOptions`` or ``UpdateOptions`` decoded from a write's query, in Go's field order
    (every field ``omitempty``); a patch is admitted with the options of the write it makes
    (kube's ``patchToUpdateOptions`` and ``patchToCreateOptions`` keep these three)."""
    options: Json = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
    dry = list(dry_run)
    if dry:
        options["dryRun"] = dry
    for key in ("fieldManager", "fieldValidation"):
        if query.get(key):
            options[key] = query[key]
    return options


@dataclass
class Attributes:
    """One admission call's ``admission.Attributes``: the operation on an object of a kind,
    served as ``resource`` (and ``subresource``) of ``group``/``version``; the kind's group and
    version where they are not the resource's (``pods/eviction`` takes a policy/v1 Eviction)."""

    operation: str
    group: str
    version: str
    kind: str
    resource: str
    subresource: str
    namespace: str
    name: str
    object: Json | None
    old_object: Json | None
    request: WebhookRequest
    kind_group: str | None = None
    kind_version: str | None = None
