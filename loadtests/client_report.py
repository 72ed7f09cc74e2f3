"""The "clients" section of a load run: fakeapi's per-client report at the end of the run
(``GET /fakeapi/v1/report``), written as ``clients.json`` (the report), ``clients.txt`` (the
``fakeapi report`` table) and ``clients.png`` (the costliest clients: serving time, bytes sent,
objects examined, watch events), and summarised for ``summary.json``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

#: Clients kept in summary.json and drawn (the report has them all).
TOP = 10


def client_report(url: str, out: Path) -> dict[str, Any] | None:
    """Fetch the report, write its files into ``out``; the summary's "clients" section (None
    when the server has no report)."""
    try:
        with urllib.request.urlopen(f"{url}/fakeapi/v1/report?sort=time", timeout=30) as response:
            report = json.load(response)
    except (urllib.error.URLError, OSError, ValueError):
        return None
    from fakeapi.clients.table import render

    (out / "clients.json").write_text(json.dumps(report, indent=2))
    (out / "clients.txt").write_text(render(report) + "\n")
    _plot(report, out / "clients.png")
    return {"clients": [{"client": c["client"], **c["totals"], "findings": c["findings"]}
                        for c in report["clients"][:TOP]],
            "findings": [{key: f[key] for key in ("detector", "clients", "resource", "count", "evidence")}
                         for f in report["findings"]]}


def _plot(report: dict[str, Any], path: Path) -> None:
    clients = report["clients"][:TOP]
    if not clients:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (("servingSeconds", "seconds serving"), ("responseBytes", "MB sent"),
              ("objectsExamined", "objects examined"), ("watchEvents", "watch events"))
    names = [c["client"] + (f"  [{', '.join(c['findings'])}]" if c["findings"] else "") for c in clients][::-1]
    fig, axes = plt.subplots(1, len(panels), figsize=(14, 0.45 * len(clients) + 1.5), sharey=True)
    for ax, (counter, label) in zip(axes, panels):
        values = [c["totals"][counter] / (1e6 if counter == "responseBytes" else 1) for c in clients][::-1]
        ax.barh(range(len(values)), values)
        ax.set_title(label, fontsize=9)
        ax.tick_params(labelsize=7)
    axes[0].set_yticks(range(len(names)), names, fontsize=7)
    fig.suptitle("clients by cost (fakeapi report; detectors that fired in brackets)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
