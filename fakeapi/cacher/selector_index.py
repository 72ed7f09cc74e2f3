"""Object keys by label value and by field value, so that a LIST whose selectors pick a few
objects out of many reads those few rather than every object of the cache.

kube's cacher filters every object of its watch cache with the selectors (in Go), but for the
fields it indexes (a pod's ``spec.nodeName``: each kubelet lists its own pods); fakeapi's filter
runs in Python, where one object costs as much as kube's whole list of dozens. A selector that
selects a controller's own pods (``app=web``, ``pod-template-hash in (a,b)``) or a node's
(``spec.nodeName=node-1``) names values of label keys and fields; the index keeps, per label key
and field a selector has named, the keys of the objects having each value, as sets the
requirements combine with C set operations:

- labels ``=``, ``==``, ``in``: the objects having one of the values; ``exists``: having the
  label; ``!``: lacking it (the objects lacking a label are kept as those of a value no label
  can have, so that ``!key`` reads them, not every object less the others);
- fields ``=``, ``==``: the objects with that value (a field an object does not have reads "",
  as kube's field sets have it);
- label ``!=``, ``notin``, ``gt``, ``lt`` and field ``!=`` narrow nothing (most objects match
  them): the other requirements' sets, or every object, are filtered by the selectors as before.

The sets are the selected objects or more, never fewer. They are exactly the selected objects
when every requirement is one of those the index answers (``answers_exactly``): the caller then
takes them as they are, else it matches each object it reads against the whole selectors. A
label key or field is indexed from the first selector naming it on (one pass over the objects),
then kept current by every event; a refill of the cache drops the index, which the next
selector builds again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Protocol

from ..machinery.selectors import FieldSelector, LabelSelector

#: The label operators whose objects are those having given values of the label, or the label.
_HAVING = frozenset(("=", "==", "in", "exists"))
_LACKING = "!"
#: The value the label index keeps the objects lacking a label under: no label value can be it
#: (label values are validated on every write: at most 63 of ``[-A-Za-z0-9_.]``).
_NO_LABEL = "\x00"


class Selectable(Protocol):
    @property
    def labels(self) -> Mapping[str, str]: ...

    @property
    def fields(self) -> Mapping[str, str]: ...


class _ValueIndex:
    """Per indexed name (a label key, a field), each value's object keys; an object that does not
    have the name is kept under ``missing``."""

    def __init__(self, read: Callable[[Selectable], Mapping[str, str]], missing: str) -> None:
        self._read = read
        self._missing = missing
        self._by_name: dict[str, dict[str, set[str]]] = {}

    def update(self, key: str, old: Selectable | None, new: Selectable | None) -> None:
        if not self._by_name:
            return
        old_values = None if old is None else self._read(old)
        new_values = None if new is None else self._read(new)
        missing = self._missing
        for name, by_value in self._by_name.items():
            before = None if old_values is None else old_values.get(name, missing)
            after = None if new_values is None else new_values.get(name, missing)
            if before == after:
                continue
            if before is not None:
                keys = by_value[before]
                keys.discard(key)
                if not keys:
                    del by_value[before]
            if after is not None:
                by_value.setdefault(after, set()).add(key)

    def values(self, name: str, objects: Mapping[str, Selectable]) -> dict[str, set[str]]:
        """The index of ``name``, made from ``objects`` the first time it is asked for."""
        by_value = self._by_name.get(name)
        if by_value is None:
            by_value = self._by_name[name] = {}
            read, missing = self._read, self._missing
            for key, obj in objects.items():
                by_value.setdefault(read(obj).get(name, missing), set()).add(key)
        return by_value


def answers_exactly(labels: LabelSelector, fields: FieldSelector) -> bool:
    """Whether ``SelectorIndex.select`` gives exactly the objects the selectors select: each
    label requirement's set is the objects having (or lacking) its values or its key, as
    ``LabelSelector.matches`` reads the labels, and each field term's the objects whose field
    reads its value, a missing field reading "" as ``FieldSelector.matches`` has it."""
    return (all(r.operator in _HAVING or r.operator == _LACKING for r in labels.requirements)
            and all(term.equal for term in fields.requirements))


class SelectorIndex:
    """The label index and the field index of one watch cache's current objects."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self._labels = _ValueIndex(lambda obj: obj.labels, _NO_LABEL)
        self._fields = _ValueIndex(lambda obj: obj.fields, "")

    def update(self, key: str, old: Selectable | None, new: Selectable | None) -> None:
        """The object ``key`` was ``old`` (None: it was not there) and is ``new`` (None: deleted)."""
        self._labels.update(key, old, new)
        self._fields.update(key, old, new)

    def select(self, labels: LabelSelector, fields: FieldSelector,
               objects: Mapping[str, Selectable]) -> Collection[str] | None:
        """Keys of ``objects``, those the selectors select and maybe more (not to be changed:
        they may be the index's own set), or None when no requirement narrows them."""
        having: list[set[str]] = []
        for requirement in labels.requirements:
            operator = requirement.operator
            if operator not in _HAVING and operator != _LACKING:
                continue
            by_value = self._labels.values(requirement.key, objects)
            if operator == _LACKING:
                having.append(by_value.get(_NO_LABEL) or set())
            elif operator == "exists":
                having.append(_union(keys for value, keys in by_value.items() if value != _NO_LABEL))
            else:
                having.append(_union(by_value[value] for value in requirement.values if value in by_value))
        for term in fields.requirements:
            if term.equal:
                having.append(self._fields.values(term.field, objects).get(term.value) or set())
        if not having:
            return None
        having.sort(key=len)
        return having[0].intersection(*having[1:]) if len(having) > 1 else having[0]


def _union(sets: Iterable[set[str]]) -> set[str]:
    """The union of ``sets``; one set is returned as it is (callers only read it)."""
    collected = list(sets)
    if len(collected) == 1:
        return collected[0]
    return set().union(*collected)
