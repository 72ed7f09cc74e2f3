"""Object keys by label value, so that a LIST whose label selector picks a few objects out of
many reads those few rather than every object of the cache.

kube's cacher filters every object of its watch cache with the selector (in Go); fakeapi's filter
runs in Python, where one object costs as much as kube's whole list of dozens. A selector that
selects a controller's own pods (``app=web``, ``pod-template-hash in (a,b)``) names values of
label keys; the index keeps, per label key a selector has named, the keys of the objects having
each value, as sets the requirements combine with C set operations:

- ``=``, ``==``, ``in``: the objects having one of the values; ``exists``: having the label;
- ``!``: the objects, less those having the label;
- ``!=``, ``notin``, ``gt``, ``lt`` narrow nothing (most objects match them): the other
  requirements' sets, or every object, are filtered by the selector as before.

The sets are the selected objects or more, never fewer: the caller still matches each object it
reads against the whole selector. A label key is indexed from the first selector naming it on
(one pass over the objects), then kept current by every event; a refill of the cache drops the
index, which the next selector builds again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Protocol

from ..machinery.selectors import LabelSelector

#: The operators whose objects are those having given values of the label, or the label at all.
_HAVING = frozenset(("=", "==", "in", "exists"))
_LACKING = "!"


class Labelled(Protocol):
    @property
    def labels(self) -> Mapping[str, str]: ...


class LabelIndex:
    """Per indexed label key, each value's object keys."""

    def __init__(self) -> None:
        self._by_label: dict[str, dict[str, set[str]]] = {}

    @property
    def indexing(self) -> bool:
        """Whether any label key is indexed (events then update the index)."""
        return bool(self._by_label)

    def clear(self) -> None:
        self._by_label.clear()

    def update(self, key: str, old: Mapping[str, str] | None, new: Mapping[str, str] | None) -> None:
        """The object ``key`` had labels ``old`` (None: it was not there) and has ``new`` (None:
        deleted)."""
        for label, by_value in self._by_label.items():
            before = None if old is None else old.get(label)
            after = None if new is None else new.get(label)
            if before == after:
                continue
            if before is not None:
                keys = by_value[before]
                keys.discard(key)
                if not keys:
                    del by_value[before]
            if after is not None:
                by_value.setdefault(after, set()).add(key)

    def select(self, selector: LabelSelector, objects: Mapping[str, Labelled]) -> Collection[str] | None:
        """Keys of ``objects``, those the selector selects and maybe more (not to be changed:
        they may be the index's own set), or None when no requirement narrows them. The
        objects' labels are read only to index a label key the first time."""
        having: list[set[str]] = []
        lacking: list[set[str]] = []
        for requirement in selector.requirements:
            if requirement.operator not in _HAVING and requirement.operator != _LACKING:
                continue
            by_value = self._by_label.get(requirement.key)
            if by_value is None:
                by_value = self._build(requirement.key, objects)
            if requirement.operator in ("exists", _LACKING):
                with_label = _union(by_value.values())
                (having if requirement.operator == "exists" else lacking).append(with_label)
            else:
                having.append(_union(by_value[value] for value in requirement.values if value in by_value))
        if having:
            having.sort(key=len)
            selected = having[0].intersection(*having[1:]) if len(having) > 1 else having[0]
            return selected.difference(*lacking) if lacking else selected
        if lacking:
            return objects.keys() - _union(lacking)
        return None

    def _build(self, label: str, objects: Mapping[str, Labelled]) -> dict[str, set[str]]:
        by_value: dict[str, set[str]] = {}
        for key, obj in objects.items():
            value = obj.labels.get(label)
            if value is not None:
                by_value.setdefault(value, set()).add(key)
        self._by_label[label] = by_value
        return by_value


def _union(sets: Iterable[set[str]]) -> set[str]:
    """The union of ``sets``; one set is returned as it is (callers only read it)."""
    collected = list(sets)
    if len(collected) == 1:
        return collected[0]
    return set().union(*collected)
