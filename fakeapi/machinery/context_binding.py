"""A context variable bound to a value for the length of a ``with`` block."""

from __future__ import annotations

import contextvars
from typing import Generic, TypeVar

T = TypeVar("T")


class Binding(Generic[T]):
    """``with Binding(var, value) as value:`` sets ``var`` (None outside any block) to ``value``
    in the block and restores it after. A class rather than a ``contextlib.contextmanager``
    generator, which costs three times as much: every request opens a few (its warnings'
    recorder, its requester)."""

    __slots__ = ("_var", "_value", "_token")

    def __init__(self, var: contextvars.ContextVar[T | None], value: T) -> None:
        self._var = var
        self._value = value

    def __enter__(self) -> T:
        self._token = self._var.set(self._value)
        return self._value

    def __exit__(self, *_exc: object) -> None:
        self._var.reset(self._token)
