"""A kind's ``default`` hook as kube's decoding runs it: what a body must be to decode at all
(quantities that parse, annotations that carry internal fields), then the defaults. A body that
does not decode is a 400 naming the kind (``fakeapi.apis.core.decoding``)."""

from __future__ import annotations

from collections.abc import Callable

from .core import decoding
from .fields import Json

Step = Callable[[Json], None]


def decoder(kind: str, *steps: Step, version: str = "v1") -> Step:
    """The ``default`` hook running ``steps`` in order, decoding errors answered as kube does."""
    def decode(obj: Json) -> None:
        with decoding(kind, version):
            for step in steps:
                step(obj)
    return decode
