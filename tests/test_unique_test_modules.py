"""Test modules are collected by their file name alone (no packages under tests/, pytest's
default import mode): two ``test_x.py`` in different directories stop the whole run at
collection. This catches it in any run of this file, not only in a run of both modules."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_test_module_names_are_unique() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        by_name[path.name].append(str(path.relative_to(TESTS)))
    assert {name: paths for name, paths in by_name.items() if len(paths) > 1} == {}
