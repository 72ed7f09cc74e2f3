"""Bulk loads: building a few hundred thousand long-lived objects at once (a snapshot loaded,
caches filled from it)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector: a bulk load allocates many containers and frees
    none, and every collection it triggers would walk all of them again (the cost then grows
    with the square of the load). Reference counting goes on; the collector resumes after."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
