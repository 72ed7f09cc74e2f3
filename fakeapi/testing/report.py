"""The per-client report as a test reads it (``fakeapi.report()``, ``ServerProcess.report()``):
the JSON of ``GET /fakeapi/v1/report`` with helpers to find clients and findings, and to fail
a test on findings with their evidence in the message."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from typing import Any

import httpx

from ..clients import DETECTORS
from ..clients.table import finding_lines, render

#: The client name of the test helpers' own requests (``FakeAPI.http``, ``apply``, ``wait_for``):
#: left out of ``findings`` unless asked for by name.
TESTING_CLIENT = "fakeapi-testing"
USER_AGENT = f"{TESTING_CLIENT}/0.1.0"

Json = dict[str, Any]


class Report:
    """One report. ``client`` patterns are shell-style (``kube-controller-manager/*``)."""

    def __init__(self, data: Json) -> None:
        self.data = data

    @classmethod
    def fetch(cls, http: httpx.Client, since: float | None = None, sort: str = "time") -> Report:
        """The report of the server behind ``http`` (``GET /fakeapi/v1/report``) over the last
        ``since`` seconds (default: all it keeps)."""
        params = {"sort": sort, **({"since": str(since)} if since else {})}
        response = http.get("/fakeapi/v1/report", params=params)
        response.raise_for_status()
        return cls(response.json())

    @property
    def clients(self) -> list[Json]:
        """Clients by cost, each with ``totals``, ``requests`` rows and ``findings``."""
        return self.data["clients"]  # type: ignore[no-any-return]

    def client(self, pattern: str) -> Json:
        """The first client (costliest) whose name matches; ``KeyError`` naming those seen."""
        for client in self.clients:
            if fnmatchcase(client["client"], pattern):
                return client
        raise KeyError(f"no client {pattern!r} in the report; clients: {[c['client'] for c in self.clients]}")

    def findings(self, *detectors: str, client: str | None = None) -> list[Json]:
        """Findings of ``detectors`` (all when none are named) for clients matching ``client``
        (default: every client but the test helpers' own)."""
        check_detectors(detectors)
        found = []
        for finding in self.data["findings"]:
            if detectors and finding["detector"] not in detectors:
                continue
            names = finding["clients"]
            if client is None:
                if all(name == TESTING_CLIENT for name in names):
                    continue
            elif not any(fnmatchcase(name, client) for name in names):
                continue
            found.append(finding)
        return found

    def assert_no_findings(self, *detectors: str, client: str | None = None) -> None:
        """``AssertionError`` listing the findings (with evidence and an example request)
        when any of ``detectors`` fired for ``client`` (see ``findings``)."""
        found = self.findings(*detectors, client=client)
        if found:
            named = ", ".join(detectors) if detectors else "any detector"
            raise AssertionError(f"fakeapi: {named} fired:\n" + "\n".join(finding_lines(found)))

    def __str__(self) -> str:
        return render(self.data)


def check_detectors(detectors: Iterable[str]) -> None:
    """``ValueError`` naming the detectors that do not exist."""
    unknown = sorted(set(detectors) - set(DETECTORS))
    if unknown:
        raise ValueError(f"unknown detectors {unknown}; known: {', '.join(DETECTORS)}")
