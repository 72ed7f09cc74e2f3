"""The rules of each built-in kind, as kube spreads them over ``pkg/apis/<group>/v1/defaults.go``
(defaulting), ``pkg/apis/<group>/validation`` (validation) and ``pkg/registry/<group>/<resource>/
strategy.go`` (what create and update do to an object beyond the generic store).

Each group package (``fakeapi/apis/<group>/``) registers its kinds' rules with ``register`` when
it is imported; ``install.py`` imports them all, once, the first time rules are asked for (kube's
``pkg/apis/<group>/install``). A kind without rules gets the generic behaviour of the registry.

When kube runs each hook, and so when the registry calls it:

* ``default``: when a body is decoded — the body of a create or an update, and the object a patch
  or an apply produced (kube decodes it again). Runs on the object in the *served* version, whole,
  in place; idempotent (a stored object defaulted again is unchanged).
* ``prepare_for_create`` / ``prepare_for_update``: the strategy's ``PrepareFor*``, after the
  server-owned metadata is set: reset what clients may not set (status through the main
  resource, spec through ``/status``), clear fields whose feature is off, bump generation.
  ``prepare_for_status_update`` is the ``/status`` endpoint's.
* ``validate`` / ``validate_update`` / ``validate_status_update``: the strategy's ``Validate*``,
  after admission, returning field errors (``fakeapi.machinery.status.FieldError``) in kube's
  order; any error refuses the write with 422 Invalid. They include the ObjectMeta checks
  (``ValidateObjectMeta`` with the kind's name rule), as kube's per-kind validators do.
* ``warnings_on_create`` / ``warnings_on_update``: ``Warning`` headers of an accepted write.
* ``default_propagation_policy``: the strategy's ``DefaultGarbageCollectionPolicy`` for a delete
  that names none (None: background, no finalizer); ``default_propagation_warning`` is the
  warning kube's storage sends when it applies (batch/v1 Jobs orphan their pods by default).
* ``graceful_delete_period``: the strategy's ``CheckGracefulDelete`` (``RESTGracefulDeleteStrategy``,
  pods only): given the stored object and the request's grace period (None: not given), the
  grace period its delete gets. A graceful delete first writes the object marked deleting
  (deletionTimestamp now + the period); with a period of 0 and no finalizers the object is then
  deleted by a second write. None for kinds deleted at once.
* ``first_update_writes``: whether kube stored this object, as its create left it, without
  fields its reads add (kube defaults every decoded object; fakeapi stores them defaulted), so
  the object's first update writes (a new resourceVersion, an event) even when it changes
  nothing: PVCs' status phase, the labels of a Job created without any.
* ``allow_unconditional_update``: the strategies' ``AllowUnconditionalUpdate``; when False, a
  PUT (of the object or a subresource) whose body has no resourceVersion is refused (422) rather
  than applied to the stored object (custom resources, APIServices).
* ``reset_fields`` / ``status_reset_fields``: the strategies' ``GetResetFields``, the paths
  (tuples of field names) a write through the main resource / ``/status`` does not own in
  managedFields. None: kube's usual pair for a kind with a status subresource (``status`` /
  ``spec``), nothing without one.
* ``subresources``: the strategies of the kind's other update subresources (a CSR's
  ``/approval``), each a ``SubresourceStrategy``: what an update through it keeps of the request
  (given the new and the stored object, it returns the object to store), its validation, and its
  reset fields (None: the main resource's).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from ..machinery.status import FieldError

Json = dict[str, Any]
Defaulter = Callable[[Json], None]
CreatePreparer = Callable[[Json], None]
UpdatePreparer = Callable[[Json, Json], None]  # (new, old), new in place
Validator = Callable[[Json], list[FieldError]]
UpdateValidator = Callable[[Json, Json], list[FieldError]]  # (new, old)
CreateWarnings = Callable[[Json], list[str]]
UpdateWarnings = Callable[[Json, Json], list[str]]
GracePeriod = Callable[[Json, int | None], int]  # (stored object, requested period)


class SubresourceStrategy(NamedTuple):
    """An update subresource's strategy: ``prepare`` (new, old) returns the object to store;
    ``validate`` its ``ValidateUpdate``; ``reset_fields`` its ``GetResetFields`` (None: the main
    resource's)."""

    prepare: Callable[[Json, Json], Json]
    validate: UpdateValidator
    reset_fields: tuple[tuple[str, ...], ...] | None = None


@dataclass(frozen=True, slots=True)
class KindRules:
    """The hooks of one kind in one version; None: nothing beyond the generic registry."""

    default: Defaulter | None = None
    prepare_for_create: CreatePreparer | None = None
    prepare_for_update: UpdatePreparer | None = None
    prepare_for_status_update: UpdatePreparer | None = None
    validate: Validator | None = None
    validate_update: UpdateValidator | None = None
    validate_status_update: UpdateValidator | None = None
    warnings_on_create: CreateWarnings | None = None
    warnings_on_update: UpdateWarnings | None = None
    default_propagation_policy: str | None = None
    default_propagation_warning: str | None = None
    graceful_delete_period: GracePeriod | None = None
    first_update_writes: Callable[[Json], bool] | None = None
    allow_unconditional_update: bool = True
    reset_fields: tuple[tuple[str, ...], ...] | None = None
    status_reset_fields: tuple[tuple[str, ...], ...] | None = None
    subresources: dict[str, SubresourceStrategy] = field(default_factory=dict)


NO_RULES = KindRules()
_HOOKS = frozenset(f.name for f in fields(KindRules))
_rules: dict[tuple[str, str, str], KindRules] = {}
_installed = False


def register(group: str, version: str, kind: str, **hooks: Any) -> None:
    """Register hooks (``KindRules`` field names) for a kind; registering again adds to or
    replaces the hooks given, so defaulting and validation modules can register separately."""
    unknown = set(hooks) - _HOOKS
    if unknown:
        raise TypeError(f"unknown rule hooks {sorted(unknown)}")
    key = (group, version, kind)
    current = _rules.get(key, NO_RULES)
    _rules[key] = KindRules(**{name: hooks.get(name, getattr(current, name)) for name in _HOOKS})


def rules_for(group: str, version: str, kind: str) -> KindRules:
    """The rules of a built-in kind (``NO_RULES`` for custom resources and kinds without any)."""
    global _installed
    if not _installed:
        importlib.import_module(f"{__package__}.install")
        _installed = True
    return _rules.get((group, version, kind), NO_RULES)
