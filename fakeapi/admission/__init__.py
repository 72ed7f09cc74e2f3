"""The admission plugins of kube-apiserver that change what is stored (mutating admission; kube's
``plugin/pkg/admission/<plugin>``), one module each in this package, run where kube runs them:
after the field manager recorded the request's fields (so what a plugin sets is owned by nobody,
as in kube) and before the strategy's validation. Validating admission (``validating``; a
plugin for every kind with ``validating_all``) runs after the strategy's validation, as kube's
``createValidation``/``updateValidation``.

fakeapi's oracle is kube-apiserver with its default plugins except ``ServiceAccount`` (see
``fakeapi.cluster.control_plane``). A plugin is a function registered for a kind with
``mutating``; it gets the ``Admission`` of the registry, the object, the stored object (None on
create) and the subresource written (None for the main resource). ``Admission.lookup`` reads
another object (a PriorityClass), ``Admission.list`` the objects of a kind (the default
StorageClass, a namespace's LimitRanges). A plugin refuses a write by raising a
``StatusError``. ``Admission.update_status`` writes another object's status (ResourceQuota
usage); ``Admission.dry_run`` says whether the write being admitted is a dry run.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any, Protocol

from ..machinery.status import StatusError, forbidden

Json = dict[str, Any]


class Lookup(Protocol):
    def __call__(self, group: str, kind: str, namespace: str | None, name: str) -> Json | None: ...


class Lister(Protocol):
    def __call__(self, group: str, kind: str, namespace: str | None) -> list[Json]: ...


class StatusWriter(Protocol):
    def __call__(self, group: str, kind: str, namespace: str | None, name: str,
                 change: Callable[[Json], Json]) -> None: ...


#: (admission, new object, stored object or None on create, subresource or None).
Plugin = Callable[["Admission", Json, Json | None, str | None], None]

_plugins: dict[tuple[str, str], list[Plugin]] = {}
_validators: dict[tuple[str, str], list[Plugin]] = {}
_validators_of_all: list[Plugin] = []
_installed = False


def mutating(group: str, kind: str) -> Callable[[Plugin], Plugin]:
    """Register a mutating admission plugin for a kind (plugins run in registration order)."""
    def register(plugin: Plugin) -> Plugin:
        _plugins.setdefault((group, kind), []).append(plugin)
        return plugin
    return register


def validating(group: str, kind: str) -> Callable[[Plugin], Plugin]:
    """Register a validating admission plugin for a kind: it may only refuse (raise)."""
    def register(plugin: Plugin) -> Plugin:
        _validators.setdefault((group, kind), []).append(plugin)
        return plugin
    return register


def validating_all(plugin: Plugin) -> Plugin:
    """Register a validating admission plugin for every kind (it reads the object's kind)."""
    _validators_of_all.append(plugin)
    return plugin


def _install() -> None:
    global _installed
    if not _installed:
        for module in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{module.name}")
        _installed = True


def plugins_for(group: str, kind: str) -> list[Plugin]:
    _install()
    return _plugins.get((group, kind), [])


def validators_for(group: str, kind: str) -> list[Plugin]:
    _install()
    return _validators.get((group, kind), []) + _validators_of_all


def refusal(group: str, resource: str, obj: Json, message: str) -> StatusError:
    """``admission.NewForbidden``: 403 naming the object, or the generateName it was created
    with before its name was generated, or "Unknown"."""
    meta = obj.get("metadata") or {}
    return forbidden(group, resource, meta.get("name") or meta.get("generateName") or "Unknown", message)


class Admission:
    """The admission chain of one registry; ``lookup`` reads a stored object (or None),
    ``list`` the stored objects of a kind (in one namespace, or all)."""

    def __init__(self, lookup: Lookup, lister: Lister | None = None, status_writer: StatusWriter | None = None) -> None:
        self.lookup = lookup
        self.list: Lister = lister or (lambda group, kind, namespace: [])
        self.update_status: StatusWriter = status_writer or (lambda group, kind, namespace, name, change: None)
        self.dry_run = False

    def admit(self, group: str, kind: str, obj: Json, old: Json | None, subresource: str | None) -> None:
        for plugin in plugins_for(group, kind):
            plugin(self, obj, old, subresource)

    def validate(self, group: str, kind: str, obj: Json, old: Json | None, subresource: str | None,
                 dry_run: bool = False) -> None:
        outer, self.dry_run = self.dry_run, dry_run  # a plugin's own writes are admitted too
        try:
            for plugin in validators_for(group, kind):
                plugin(self, obj, old, subresource)
        finally:
            self.dry_run = outer
