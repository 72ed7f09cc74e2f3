"""Profile knobs: environment variables ``LOAD_<NAME>``, read once at import of a locustfile.
The runner (``loadtests/run.py --set NAME=VALUE``) and docker-compose set them the same way."""

from __future__ import annotations

import os

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def text(name: str, default: str) -> str:
    return os.environ.get(f"LOAD_{name}", default)


def integer(name: str, default: int) -> int:
    return int(text(name, str(default)))


def number(name: str, default: float) -> float:
    return float(text(name, str(default)))


def seconds(name: str, default: str) -> float:
    """A duration knob: ``30s``, ``10h``, ``500ms`` or plain seconds."""
    return parse_seconds(text(name, default))


def parse_seconds(value: str) -> float:
    for unit in ("ms", "s", "m", "h"):
        if value.endswith(unit):
            return float(value[: -len(unit)]) * _UNITS[unit]
    return float(value)
