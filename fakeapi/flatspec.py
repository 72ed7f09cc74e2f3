"""Flat specs, the one shape every fault takes in every face (Python keywords, JSON bodies, CLI
text): ``type`` plus fields whose values are typed (JSON) or text (the command line). These are
the coercions both fault engines (``fakeapi.faults``, ``fakeapi.etcd.faults``) share."""

from __future__ import annotations


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
