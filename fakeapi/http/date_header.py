"""The ``date`` header of fakeapi's own HTTP connections (``http2``, ``http1``)."""

from __future__ import annotations

import time
from wsgiref.handlers import format_date_time


class DateHeader:
    """The ``date`` header Go's servers (kube's) send, made once a second."""

    __slots__ = ("second", "value")

    def __init__(self) -> None:
        self.second = -1
        self.value = b""

    def __call__(self) -> tuple[bytes, bytes]:
        now = int(time.time())
        if now != self.second:
            self.second, self.value = now, format_date_time(now).encode("ascii")
        return (b"date", self.value)


#: The one clock of every connection's responses.
DATE_HEADER = DateHeader()
