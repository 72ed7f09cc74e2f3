"""``fakeapi.machinery.jsonvalue``: JSON kept long costs its own size."""

from __future__ import annotations

import tracemalloc

import orjson

from fakeapi.machinery.jsonvalue import kept_json


def _allocated(make):  # type: ignore[no-untyped-def]
    """What ``make()``'s answer holds of the memory tracemalloc traces, and the answer."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = make()
        return tracemalloc.get_traced_memory()[0] - before, value
    finally:
        tracemalloc.stop()


def test_kept_json_is_the_json_in_memory_of_its_own_size() -> None:
    """A stored revision is ``kept_json``'s: the JSON orjson writes, without the buffer orjson
    grew for it (which ``orjson.dumps``' answer keeps: many times the JSON's size here)."""
    pod = {"metadata": {"name": "p", "managedFields": [{"fieldsV1": {f"f:field{i}": {} for i in range(400)}}]}}
    size, kept = _allocated(lambda: kept_json(pod))
    assert kept == orjson.dumps(pod) and len(kept) > 6000
    assert size < len(kept) + 256
    grown, dumped = _allocated(lambda: orjson.dumps(pod))
    assert grown > 2 * len(dumped)  # what kept_json spares (if orjson ever stops, drop kept_json)
