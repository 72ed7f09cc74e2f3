"""The client report (the JSON of ``ClientReport.report``) as a terminal table: clients by cost,
each followed by its costliest requests, then the findings with their evidence."""

from __future__ import annotations

import time
from typing import Any

#: (heading, counter) of the table's columns.
_COLUMNS = (
    ("REQUESTS", "requests"), ("SECONDS", "servingSeconds"), ("REQ BYTES", "requestBytes"),
    ("RESP BYTES", "responseBytes"), ("RETURNED", "objectsReturned"), ("EXAMINED", "objectsExamined"),
    ("STORE", "storeReads"), ("WATCHES", "watchesOpened"), ("EVENTS", "watchEvents"), ("410", "expired"),
    ("409", "conflicts"), ("NO-OP", "noopWrites"),
)
_BYTES = {"requestBytes", "responseBytes"}
#: The client column is as wide as the longest row name, within these bounds.
_NAME_WIDTHS = (24, 64)


def render(report: dict[str, Any], rows_per_client: int = 3) -> str:
    """The report as text: a header line, the clients table, the findings."""
    since = report.get("since")
    window = f"last {_duration(since)}" if since else "since the server started"
    lines = [f"clients by {report['sort']}, {window} (from {_clock(report['from'])} to {_clock(report['generatedAt'])})"]
    rows: list[tuple[str, dict[str, Any], str]] = []
    for client in report["clients"]:
        name = client["client"]
        if client.get("openWatches"):
            name += f" ({client['openWatches']} watching)"
        rows.append((name, client["totals"], ",".join(client["findings"])))
        rows.extend((f"  {row['verb']} {row['resource']} ({row['scope']})", row, "")
                    for row in client["requests"][:rows_per_client])
    width = min(max([_NAME_WIDTHS[0], *(len(name) for name, _, _ in rows)]), _NAME_WIDTHS[1])
    lines.append(" ".join(["CLIENT".ljust(width), *(heading.rjust(_width(heading)) for heading, _ in _COLUMNS),
                           "FINDINGS"]))
    lines.extend(_row(name, counters, findings, width) for name, counters, findings in rows)
    if not report["clients"]:
        lines.append("(no requests)")
    findings = report["findings"]
    lines.append("")
    lines.append(f"findings: {len(findings)}" + (f" ({report['limits']['droppedFindings']} more dropped)"
                                                 if report["limits"].get("droppedFindings") else ""))
    lines.extend(finding_lines(findings))
    return "\n".join(lines)


def finding_lines(findings: list[dict[str, Any]]) -> list[str]:
    """Each finding on a line (detector, clients, resource, how often, when, evidence), its
    example request on the next."""
    lines = []
    for finding in findings:
        times = f"{_clock(finding['firstAt'])}" + (
            f"-{_clock(finding['lastAt'])}" if finding["lastAt"] != finding["firstAt"] else "")
        evidence = " ".join(f"{key}={_value(value)}" for key, value in finding["evidence"].items())
        lines.append(f"{finding['detector']:<15} {', '.join(finding['clients'])} on {finding['resource']}: "
                     f"{finding['count']}x at {times}; {evidence}")
        if finding["example"]:
            lines.append(f"{'':<15} e.g. {finding['example']}")
    return lines


def _row(name: str, counters: dict[str, Any], findings: str, width: int) -> str:
    if len(name) > width:
        name = name[:width - 1] + "…"
    cells = [name.ljust(width)]
    for heading, counter in _COLUMNS:
        value = counters.get(counter, 0)
        text = _size(value) if counter in _BYTES else f"{value:.3f}" if isinstance(value, float) else _count(value)
        cells.append(text.rjust(_width(heading)))
    cells.append(findings)
    return " ".join(cells).rstrip()


def _width(heading: str) -> int:
    return max(len(heading), 8)


def _count(value: int) -> str:
    return f"{value:,}"


def _size(value: float) -> str:
    if value < 1000:
        return f"{value:.0f} B"
    for unit in ("KB", "MB"):
        value /= 1000
        if value < 1000:
            return f"{value:.1f} {unit}"
    return f"{value / 1000:.1f} GB"


def _value(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ",".join(_value(v) for v in value) + "]"
    if isinstance(value, str) and (" " in value or not value):
        return repr(value)
    return str(value)


def _duration(seconds: float) -> str:
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds % 60 == 0:
        return f"{seconds / 60:g}m"
    return f"{seconds:g}s"


def _clock(timestamp: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(timestamp))
