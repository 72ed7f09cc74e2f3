"""Flat specs, the one shape every fault takes in every face (Python keywords, JSON bodies, CLI
text): ``type`` plus fields whose values are typed (JSON) or text (the command line). These are
the coercions and checks both fault engines (``fakeapi.faults``, ``fakeapi.etcd.faults``) share."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def integer(value: object) -> int:
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("must be an integer")
    return value


def number(value: object) -> float:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise ValueError("must be a number") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a number")
    return float(value)


def text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return value


def parse_cli_spec(line: str) -> dict[str, object]:
    """``error:verb=list,resource=pods,code=429,rate=0.1`` as a flat spec (values as text)."""
    kind, _, rest = line.partition(":")
    spec: dict[str, object] = {"type": kind.strip()}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"expected key=value, got {item!r}")
        spec[key.strip()] = value.strip()
    return spec


def check_count_and_rate(count: int | None, rate: float | None) -> None:
    """A fault fires on every match, on the first ``count`` or with probability ``rate``."""
    if count is not None and rate is not None:
        raise ValueError("give count or rate, not both")
    if count is not None and count < 1:
        raise ValueError("count must be at least 1")
    if rate is not None and not 0.0 < rate <= 1.0:
        raise ValueError("rate must be in (0, 1]")


def parse_fields(
    spec: Mapping[str, object],
    fields: Mapping[str, tuple[str, ...]],
    coerce: Mapping[str, Callable[[object], object]],
    name: Callable[[str], str] = str,
    shown: Callable[[str], str] = str,
) -> tuple[str, dict[str, Any]]:
    """(type, kwargs) of a flat spec whose type is a key of ``fields``, which lists the fields
    of each type; a key is turned into a field by ``name`` (camelCase to snake_case, say) and a
    field shown in errors by ``shown``. ValueError says what is wrong."""
    kind = spec.get("type")
    if kind not in fields:
        raise ValueError(f"type must be one of {', '.join(fields)}")
    kwargs: dict[str, Any] = {}
    for key, value in spec.items():
        if key == "type" or value is None:
            continue
        field = name(key)
        if field not in fields[kind]:
            raise ValueError(f"unknown field {key!r} for type {kind}; known: {', '.join(map(shown, fields[kind]))}")
        try:
            kwargs[field] = coerce[field](value)
        except ValueError as err:
            raise ValueError(f"{key} {err}") from None
    return kind, kwargs
