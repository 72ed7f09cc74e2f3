"""Pieces of kube's per-kind strategies (``pkg/registry/<group>/<resource>/strategy.go``) that many
kinds share, as hooks for ``rules.register``.

``metadata.generation`` is the strategy's business in kube, and each kind does it its own way:
most set 1 on create and add one when the spec changes, some compare other fields, some never
set it (RBAC objects, Leases, HPAs), PriorityClasses set 1 and never move it. The registry's
generic rule guesses from the schema; the kinds registered with these hooks say what kube does.
"""

from __future__ import annotations

from collections.abc import Callable

from .fields import Json

UpdatePreparer = Callable[[Json, Json], None]


def first_generation(obj: Json) -> None:
    """``PrepareForCreate``: ``obj.Generation = 1``."""
    obj["metadata"]["generation"] = 1


def no_generation(obj: Json) -> None:
    """A strategy that never sets generation: a client's value is kept, none is added."""
    obj["metadata"].pop("generation", None)


def set_generation(new: Json, old: Json, changed: bool) -> None:
    """``if changed { new.Generation = old.Generation + 1 }``, else the stored generation (a
    client cannot set it)."""
    generation = (old["metadata"].get("generation") or 0) + (1 if changed else 0)
    if generation:
        new["metadata"]["generation"] = generation
    else:
        new["metadata"].pop("generation", None)


def keep_generation(new: Json, old: Json) -> None:
    """An update that never moves generation."""
    set_generation(new, old, False)


def generation_on_change(*keys: str) -> UpdatePreparer:
    """``PrepareForUpdate`` moving generation when any of the top-level fields ``keys`` changed."""
    def prepare(new: Json, old: Json) -> None:
        set_generation(new, old, any(new.get(key) != old.get(key) for key in keys))
    return prepare


def no_status(obj: Json) -> None:
    """Kinds without a status: nothing a client sent there is kept."""
    obj.pop("status", None)
