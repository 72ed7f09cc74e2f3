"""Helpers of the client-report tests: the type of the ``python_client`` fixture, and reading
a report's rows."""

from __future__ import annotations

from collections.abc import Callable

from kubernetes.client import CoreV1Api

#: ``python_client("my-controller/1.0")`` (the fixture in conftest.py).
Clients = Callable[[str], CoreV1Api]


def row(report: dict, client_name: str, verb: str, resource: str, scope: str | None = None) -> dict:
    """One client's counters for a verb and resource (summed over scopes unless one is named)."""
    client_data = next(c for c in report["clients"] if c["client"] == client_name)
    rows = [r for r in client_data["requests"] if r["verb"] == verb and r["resource"] == resource
            and (scope is None or r["scope"] == scope)]
    assert rows, f"no {verb} {resource} rows for {client_name}: {client_data['requests']}"
    total = dict.fromkeys(rows[0], 0)
    for r in rows:
        for key, value in r.items():
            total[key] = value if isinstance(value, str) else total[key] + value
    return total
