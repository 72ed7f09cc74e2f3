"""JSON values: copies, and answers kept for the values that come again."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import orjson

K = TypeVar("K")
V = TypeVar("V")


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, strings, numbers, booleans, None), through
    orjson: a tenth of ``copy.deepcopy``'s time for an object. What orjson does not encode (an
    integer past 64 bits, a lone surrogate) is copied by ``copy.deepcopy``."""
    try:
        return orjson.loads(orjson.dumps(value))
    except TypeError:  # orjson.JSONEncodeError
        return copy.deepcopy(value)


def kept_json(value: Any) -> bytes:
    """``orjson.dumps(value)`` in a bytes object of its own size, for JSON kept long (a stored
    revision): orjson's answer keeps the buffer it grew, half as large again (11.4 KB of memory
    for a 7.2 KB pod), which a store holding every revision until compaction would pay each
    time. The copy costs a fraction of a microsecond."""
    return memoryview(orjson.dumps(value)).tobytes()


#: How an object's stored JSON begins: its kind and apiVersion (gostruct's order, or the other
#: one), then its metadata. Neither string holds a quote or a backslash of its own.
_METADATA_FIRST = re.compile(r'\{"(?:kind|apiVersion)":"[^"\\]*","(?:kind|apiVersion)":"[^"\\]*","metadata":')
#: The json module's C scanner, which decodes one value at an index and says where it ends.
_DECODE_AT = json.JSONDecoder().raw_decode


def stored_metadata(raw: bytes) -> dict[str, Any] | None:
    """The metadata of an object's stored JSON, decoded alone (None: ``raw`` does not begin as
    ``_METADATA_FIRST`` says, so decode it all). A cache decodes labels this way for every
    object a selector or a controller looks at; past the metadata, a ClusterRole's rules or a
    pod's spec are most of the bytes, and are skipped."""
    text = raw.decode()
    match = _METADATA_FIRST.match(text)
    if match is None:
        return None
    metadata, _end = _DECODE_AT(text, match.end())
    return metadata if type(metadata) is dict else None


_NONE: Any = object()  # no answer kept (None may be one)

#: The largest part of an object kept in a ``Repeated`` by its JSON (``json_key``).
PART_MAX_BYTES = 16 * 1024


def json_key(value: Any, most: int = PART_MAX_BYTES) -> bytes | None:
    """``value``'s JSON, to key what is kept of it: None when orjson cannot encode it (an
    integer past 64 bits) or it passes ``most`` bytes. Two values with one key are the same
    JSON (``1``, ``1.0`` and ``true`` are three)."""
    try:
        encoded = orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError
        return None
    return encoded if len(encoded) <= most else None


class Repeated(Generic[K, V]):
    """Answers kept for keys seen before: the objects a server is written over and over repeat
    their parts (the pods of one template carry the same spec), and a part is kept the second
    time it comes, so parts seen once (a random payload, an object's own name) cost nothing but
    a hash. At most ``most`` answers and ``4 * most`` hashes, each let go all at once when full."""

    def __init__(self, most: int) -> None:
        self._answers: dict[K, V] = {}
        self._seen: set[int] = set()
        self._most = most

    def get(self, key: K, default: Any = None) -> Any:
        return self._answers.get(key, default)

    def answer(self, key: K, make: Callable[[], V]) -> V:
        """The answer kept for ``key``, else ``make()``'s, kept if ``key`` was seen before (an
        error from ``make`` keeps nothing)."""
        answer = self._answers.get(key, _NONE)
        if answer is _NONE:
            answer = make()
            self.put(key, answer)
        return answer  # type: ignore[return-value]

    def put(self, key: K, answer: V) -> None:
        """Keep ``answer`` if ``key`` was seen before."""
        if self._seen_again(key):
            self._keep(key, answer)

    def put_made(self, key: K, make: Callable[[], V]) -> None:
        """Keep ``make()``'s answer if ``key`` was seen before, calling ``make`` only then: an
        answer kept in another form than the caller's (encoded) costs nothing on a key's first
        sight, which for objects whose content varies is every sight."""
        if self._seen_again(key):
            self._keep(key, make())

    def _seen_again(self, key: K) -> bool:
        """Whether ``key`` was seen before; it has been now."""
        seen = hash(key)
        if seen in self._seen:
            return True
        if len(self._seen) >= 4 * self._most:
            self._seen.clear()
        self._seen.add(seen)
        return False

    def _keep(self, key: K, answer: V) -> None:
        if len(self._answers) >= self._most:
            self._answers.clear()
        self._answers[key] = answer

    def __len__(self) -> int:
        return len(self._answers)

    def clear(self) -> None:
        self._answers.clear()
        self._seen.clear()
