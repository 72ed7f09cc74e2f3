"""Polling for a state another process or task brings about (controllers, watches)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def eventually(check: Callable[[], T], what: str, timeout: float = 10.0, interval: float = 0.05) -> T:
    """``check()``'s first truthy result within ``timeout`` seconds; AssertionError naming
    ``what`` otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"not within {timeout}s: {what}")
        time.sleep(interval)
