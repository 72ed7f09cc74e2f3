"""apimachinery's ``pkg/api/validation/path``: what a name must be to be a segment of an API
path (and an etcd key). The rule every object's name meets, whatever its kind's own rule, and
the name rule of kinds that have no other (``ValidatePathSegmentName``)."""

from __future__ import annotations

#: ``NameMayNotBe`` and ``NameMayNotContain``.
_NOT_NAMES = (".", "..")
_NOT_IN_NAMES = ("/", "%")


def is_valid_path_segment_prefix(name: str) -> list[str]:
    """``IsValidPathSegmentPrefix``: a prefix may be anything a name may contain."""
    return [f"may not contain '{part}'" for part in _NOT_IN_NAMES if part in name]


def is_valid_path_segment_name(name: str) -> list[str]:
    """``IsValidPathSegmentName``."""
    if name in _NOT_NAMES:
        return [f"may not be '{name}'"]
    return is_valid_path_segment_prefix(name)


def validate_path_segment_name(name: str, prefix: bool) -> list[str]:
    """``ValidatePathSegmentName``: a ``NameValidator``."""
    return is_valid_path_segment_prefix(name) if prefix else is_valid_path_segment_name(name)
