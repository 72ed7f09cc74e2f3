"""The Rust CEL interpreter (PyPI ``common-expression-language``, module ``cel``), imported when
the first expression is compiled: the package imports its command-line interface with it, a
third of a second of start-up that a server whose objects carry no CEL does not pay."""

from __future__ import annotations

import importlib
from types import ModuleType

_module: ModuleType | None = None


def interpreter() -> ModuleType:
    """The ``cel`` module."""
    global _module
    if _module is None:
        _module = importlib.import_module("cel")
    return _module
