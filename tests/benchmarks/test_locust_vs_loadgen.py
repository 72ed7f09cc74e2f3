"""`make bench-agree`'s instrument works: the Go load generator's pod is what its client sends,
benchmarks/locust_vs_loadgen.py drives one workload with both clients against a real fakeapi and
gets a rate from each, its table says whether they agree, and bench-compare keeps the section
bench-agree's reading adds to docs/benchmarks.md. Nothing here is timed."""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


agree = _load("bench_agree", ROOT / "benchmarks" / "locust_vs_loadgen.py")


def test_the_loadgen_pod_is_the_realistic_pod_as_json() -> None:
    binary = agree.compare.build_loadgen()
    pod = json.loads(subprocess.run([str(binary), "pod", "--index", "13"], check=True, capture_output=True).stdout)
    assert (pod["apiVersion"], pod["kind"], pod["metadata"]["name"]) == ("v1", "Pod", "web-5d4f8c7b9-000013")
    assert pod["metadata"]["labels"]["bench.fakeapi.dev/shard"] == "3"
    assert [c["name"] for c in pod["spec"]["containers"]] == ["web", "proxy"]


def test_a_list_workload_gets_a_rate_from_each_client(tmp_path: Path) -> None:
    args = argparse.Namespace(only="^list", pods=20, duration=8, warm_up=2, rounds=1, results=tmp_path)
    [row] = agree.run(args)
    assert row.go_rate > 0 and row.locust_rate > 0, row
    assert not row.errors, row.errors
    assert row.go_server_ms and row.locust_server_ms
    assert row.locust_bound in ("not saturated", "server-bound", "client-bound")
    [saved] = tmp_path.glob("bench-agree-*/results.json")
    runs = json.loads(saved.read_text())["results"]["list"]
    assert runs["go"][0]["ops"] > 0 and runs["go"][0]["content_type"] == "json"


def _row(go_rate: float, locust_rate: float) -> Any:
    return agree.Row("LIST", go_rate, locust_rate, 1.0, 1.1, 0.2, 0.3, 0.4, "server-bound", 1.0, 1.2)


def test_the_table_says_whether_the_rates_agree() -> None:
    rows = [_row(100, 119), _row(100, 79), _row(0, 50)]
    assert [row.agrees for row in rows] == [True, False, False]
    table = agree.markdown_table(rows).splitlines()
    assert len(table) == 2 + len(rows)
    assert "| 100 | 119 | 1.19 | yes |" in table[2] and "| 0.79 | **no** |" in table[3] and "| - | **no** |" in table[4]


def test_medians_over_rounds() -> None:
    go = {"rate": 100.0, "ops": 1000, "seconds": 10.0, "server_cpu_seconds": 5.0, "client_cpu_seconds": 1.0,
          "machine_cpu_seconds": 10.0, "errors": 0}
    locust = {"requests_per_second": 90.0, "server_cpu": 0.45, "locust_cpu": 0.1, "locust_busy": 0.2,
              "bound": "server-bound", "others_cpu": 0.4, "failures": 0}
    runs = {"go": [go, {**go, "rate": 140.0}, {**go, "rate": 120.0}],
            "locust": [locust, {**locust, "requests_per_second": 150.0}, {**locust, "bound": "client-bound"}]}
    row = agree.build_row(agree.workloads(10)[0], runs)
    assert (row.go_rate, row.locust_rate, row.ratio) == (120.0, 90.0, 0.75)
    assert row.go_server_ms == 5.0 and row.locust_server_ms == 5.0
    assert row.go_others_cpu == 0.4 and row.locust_bound == "server-bound, server-bound, client-bound"


def test_bench_compare_keeps_the_selective_agreement_varied_and_admission_sections(tmp_path: Path) -> None:
    selective, agreement, varied, admission = agree.compare.KEPT_SECTIONS
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# old report\n\n## Results\n\nold\n\n{admission}\n\nsteps\n\n{varied}\n\nvaried rows\n\n"
                   f"{agreement}\n\nthe reading\n\n{selective}\n\nrows\n")
    assert agree.compare.kept_sections(doc) == (f"\n{selective}\n\nrows\n\n{agreement}\n\nthe reading\n\n"
                                                f"{varied}\n\nvaried rows\n\n{admission}\n\nsteps\n")
    doc.write_text(f"# old report\n\n{agreement}\n\nthe reading\n")
    assert agree.compare.kept_sections(doc) == f"\n{agreement}\n\nthe reading\n"
    assert agree.compare.kept_sections(tmp_path / "missing.md") == ""
