"""What admission webhooks are told of a request besides the object: the user and the options
(``admission.Attributes``'s ``GetUserInfo`` and ``GetOperationOptions``), set by the HTTP layer
for the write it serves and read where admission runs, deep in the write."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

Json = dict[str, Any]


@dataclass(frozen=True)
class WebhookRequest:
    """``user``: authentication/v1 ``UserInfo``; ``options``: the operation's options object
    (``CreateOptions``, ``UpdateOptions``, ``DeleteOptions``) as kube encodes it; ``resource``:
    the group, version and resource the request's path names (a resource served in several
    versions is admitted in the one requested)."""

    user: Json
    options: Json
    dry_run: bool = False
    resource: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class ServedVersion:
    """One version a stored resource is served in (an entry of kube's
    ``EquivalentResourceMapper``): its group, version, resource and kind, and the conversions of
    an object from the storage version to it and back."""

    group: str
    version: str
    resource: str
    kind: str
    to_served: Callable[[Json], Json]
    to_storage: Callable[[Json], Json]

    @property
    def gvr(self) -> tuple[str, str, str]:
        return self.group, self.version, self.resource


class EquivalentResources(Protocol):
    """The versions the resource ``group``/``resource`` is stored with, itself included (kube's
    ``EquivalentResourcesFor``: the same storage served under several versions or groups);
    empty when it is not a stored resource."""

    def __call__(self, group: str, resource: str) -> tuple[ServedVersion, ...]: ...


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
    #: The versions of the resource's storage (its ``EquivalentResources``). With any, ``object``
    #: and ``old_object`` are in the storage version; without, in the request's (a body of
    #: another kind: ``/scale``, ``/eviction``).
    versions: tuple[ServedVersion, ...] = ()
    #: Where these are the attributes a webhook or policy is given in a version of its own
    #: (``in_version``): the request's kind and resource, ``requestKind`` and ``requestResource``.
    request_kind: Json | None = None
    request_resource: Json | None = None

    def kind_json(self) -> Json:
        """The kind as a ``GroupVersionKind``."""
        return {"group": self.group if self.kind_group is None else self.kind_group,
                "version": self.kind_version or self.version, "kind": self.kind}

    def resource_json(self) -> Json:
        """The resource as a ``GroupVersionResource``."""
        return {"group": self.group, "version": self.version, "resource": self.resource}

    def requested_version(self) -> ServedVersion | None:
        """The version the request names, among ``versions`` (None: no conversion needed)."""
        return next((served for served in self.versions
                     if served.gvr == (self.group, self.version, self.resource)), None)

    def in_version(self, served: ServedVersion) -> Attributes:
        """These attributes as the version ``served`` is given them: its group, version, kind
        and resource, the objects converted to it (``versioned.go``'s ``VersionedAttributes``),
        the request's kind and resource kept as ``request_kind`` and ``request_resource``."""
        # built field by field: dataclasses.replace walks the fields each time (a write admits
        # several of these)
        return Attributes(
            self.operation, served.group, served.version, served.kind, served.resource, self.subresource,
            self.namespace, self.name, None if self.object is None else served.to_served(self.object),
            None if self.old_object is None else served.to_served(self.old_object), self.request,
            request_kind=self.kind_json(), request_resource=self.resource_json())

    def as_requested(self) -> Attributes:
        """The attributes in the version the request names."""
        served = self.requested_version()
        return self if served is None else self.in_version(served)
