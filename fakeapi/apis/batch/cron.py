"""CronJob schedules as kube-apiserver checks them: ``cron.ParseStandard`` of
github.com/robfig/cron/v3 (v3.0.1), with its error messages, behind kube's
``ParseCronScheduleWithPanicRecovery``. Only whether a schedule parses, and why not, matters
here: the CronJob controller computes the times."""

from __future__ import annotations

import re
import zoneinfo

from ...machinery.golang import go_quote

_DESCRIPTORS = frozenset(("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"))
_MONTHS = {name: i + 1 for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_DAYS = {name: i for i, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
#: (min, max, names) of minute, hour, day of month, month, day of week.
_BOUNDS: tuple[tuple[int, int, dict[str, int] | None], ...] = (
    (0, 59, None), (0, 23, None), (1, 31, None), (1, 12, _MONTHS), (0, 6, _DAYS))
_GO_INT = re.compile(r"[+-]?[0-9]+")
_DURATION_UNITS = {"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)([^0-9.]*)")


class ScheduleError(ValueError):
    """Why a schedule does not parse (the Go error's text)."""


def _atoi(text: str) -> int:
    """``strconv.Atoi``, with its error."""
    if not _GO_INT.fullmatch(text):
        raise ScheduleError(f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise ScheduleError(f"strconv.Atoi: parsing {go_quote(text)}: value out of range")
    return value


def _must_parse_int(expr: str) -> int:
    try:
        number = _atoi(expr)
    except ScheduleError as err:
        raise ScheduleError(f"failed to parse int from {expr}: {err}") from None
    if number < 0:
        raise ScheduleError(f"negative number ({number}) not allowed: {expr}")
    return number


def _int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _must_parse_int(expr)


def _check_range(expr: str, low: int, high: int, names: dict[str, int] | None) -> None:
    """``getRange``."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    if low_and_high[0] in ("*", "?"):
        start, end = low, high
    else:
        start = _int_or_name(low_and_high[0], names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], names)
        else:
            raise ScheduleError(f"too many hyphens: {expr}")
    step = 1
    if len(range_and_step) == 2:
        step = _must_parse_int(range_and_step[1])
        if len(low_and_high) == 1:
            end = high
    elif len(range_and_step) > 2:
        raise ScheduleError(f"too many slashes: {expr}")
    if start < low:
        raise ScheduleError(f"beginning of range ({start}) below minimum ({low}): {expr}")
    if end > high:
        raise ScheduleError(f"end of range ({end}) above maximum ({high}): {expr}")
    if start > end:
        raise ScheduleError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise ScheduleError(f"step of range should be a positive number: {expr}")


def _check_duration(text: str) -> None:
    """``time.ParseDuration``'s errors."""
    quoted = go_quote(text)
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return
    if not body:
        raise ScheduleError(f"time: invalid duration {quoted}")
    position = 0
    while position < len(body):
        match = _DURATION_PART.match(body, position)
        assert match is not None  # both groups may be empty
        number, unit = match.group(1), match.group(2)
        if not number or number == ".":
            raise ScheduleError(f"time: invalid duration {quoted}")
        if not unit:
            raise ScheduleError(f"time: missing unit in duration {quoted}")
        if unit not in _DURATION_UNITS:
            raise ScheduleError(f"time: unknown unit {go_quote(unit)} in duration {quoted}")
        position = match.end()


def load_location(name: str) -> str | None:
    """``time.LoadLocation``'s error, None when the zone exists (kube-apiserver embeds the IANA
    database, as Python's ``zoneinfo`` with the ``tzdata`` package does)."""
    if name in ("", "UTC", "Local"):
        return None
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return f"unknown time zone {name}"
    return None


def check_schedule(spec: str) -> None:
    """``ParseCronScheduleWithPanicRecovery(spec)``: raises ``ScheduleError`` with its message."""
    if not spec:
        raise ScheduleError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space, equals = spec.find(" "), spec.find("=")
        if space < 0:
            # spec[eq+1:i] with i == -1: the panic kube recovers from.
            raise ScheduleError("invalid schedule format: runtime error: slice bounds out of range [:-1]")
        location = spec[equals + 1:space]
        error = load_location(location)
        if error is not None:
            raise ScheduleError(f"provided bad location {location}: {error}")
        spec = spec[space:].strip()
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            return
        if spec.startswith("@every "):
            try:
                _check_duration(spec[len("@every "):])
            except ScheduleError as err:
                raise ScheduleError(f"failed to parse duration {spec}: {err}") from None
            return
        raise ScheduleError(f"unrecognized descriptor: {spec}")
    fields = spec.split()
    if len(fields) != 5:
        raise ScheduleError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    for field, (low, high, names) in zip(fields, _BOUNDS, strict=True):
        for expr in (part for part in field.split(",") if part):
            _check_range(expr, low, high, names)
