"""Imports every group package, each registering its kinds' rules (kube's ``pkg/apis/*/install``).
A group package is ``fakeapi/apis/<group>/`` (``core`` for the legacy group), with its defaulting
in ``defaults.py``, its validation in ``validation.py`` and its strategies in ``strategy.py``."""

from __future__ import annotations

import importlib
import pkgutil

from .. import apis

for _module in pkgutil.iter_modules(apis.__path__):
    if _module.ispkg:
        importlib.import_module(f"{apis.__name__}.{_module.name}")
