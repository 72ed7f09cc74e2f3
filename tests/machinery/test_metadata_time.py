"""metav1.Time as the writes stamp it: whole seconds in RFC 3339, UTC."""

from __future__ import annotations

from fakeapi.machinery import metadata


def test_now_follows_the_clock_second_by_second(monkeypatch) -> None:
    """The text is made once per second and changes with the second (not kept past it)."""
    clock = [1_700_000_000.2]
    monkeypatch.setattr(metadata.time, "time", lambda: clock[0])
    assert metadata.now_rfc3339() == "2023-11-14T22:13:20Z"
    clock[0] = 1_700_000_000.99
    assert metadata.now_rfc3339() == "2023-11-14T22:13:20Z"
    clock[0] = 1_700_000_001.0
    assert metadata.now_rfc3339() == "2023-11-14T22:13:21Z"
    clock[0] = 1_800_000_000.5  # a clock set forward
    assert metadata.now_rfc3339() == "2027-01-15T08:00:00Z"
    clock[0] = 1_700_000_000.0  # and back
    assert metadata.now_rfc3339() == "2023-11-14T22:13:20Z"
