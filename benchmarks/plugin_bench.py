"""What the pytest plugin's fixtures cost per test. Not a test: run it and read.

    .venv/bin/python benchmarks/plugin_bench.py            # 300 tests per case
    .venv/bin/python benchmarks/plugin_bench.py --tests 50

Each case is a pytest session (in this process) of N identical tests; a hook times each test's
whole protocol (setup, call, teardown). The first test of a case, which starts the worker's
server, is reported apart; the others are the per-test cost. The "plain test" case is pytest's
own overhead, to subtract.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Case name -> the body of a test file; each test does one small request when it has a server.
CASES = {
    "plain test (pytest's own cost)": "def test_it(n):\n    pass\n",
    "fakeapi": "def test_it(fakeapi, n):\n    fakeapi.http.get('/api/v1/namespaces/default/configmaps')\n",
    "fakeapi + kubeconfig": "def test_it(fakeapi, kubeconfig, n):\n    pass\n",
    "fakeapi + seed (1 configmap)": (
        "import pytest\n\n@pytest.mark.fakeapi(seed={'apiVersion': 'v1', 'kind': 'ConfigMap', "
        "'metadata': {'name': 'c'}})\ndef test_it(fakeapi, n):\n    pass\n"
    ),
    "k8s_client": "def test_it(k8s_client, n):\n    pass\n",
    "fakeapi_session": "def test_it(fakeapi_session, n):\n    fakeapi_session.http.get('/api/v1/namespaces')\n",
}


class ProtocolTimer:
    """Times each test's setup + call + teardown."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        start = time.perf_counter()
        try:
            return (yield)
        finally:
            self.seconds.append(time.perf_counter() - start)


def run_case(body: str, tests: int, workdir: Path) -> list[float]:
    workdir.mkdir()
    parametrize = f"import pytest\n\n@pytest.fixture(params=range({tests}))\ndef n(request):\n    return request.param\n"
    (workdir / "conftest.py").write_text(parametrize)
    (workdir / f"test_bench_{workdir.name}.py").write_text(body)  # one module name per in-process session
    timer = ProtocolTimer()
    code = pytest.main([str(workdir), "-q", "-p", "no:cacheprovider", "--no-header", "-o", "console_output_style=classic"],
                       plugins=[timer])
    if code != 0:
        raise SystemExit(f"the benchmark's tests failed ({code})")
    return timer.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", type=int, default=300, help="tests per case (default 300)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, (name, body) in enumerate(CASES.items()):
            seconds = run_case(body, args.tests, Path(tmp) / f"case{index}")
            rest = [s * 1000 for s in seconds[1:]]
            rows.append((name, seconds[0] * 1000, statistics.mean(rest), statistics.median(rest),
                         statistics.quantiles(rest, n=100)[98]))
    print(f"\n{args.tests} tests per case; ms per test after the first (setup + call + teardown)\n", file=sys.stderr)
    print(f"{'case':34} {'first':>8} {'mean':>8} {'median':>8} {'p99':>8}", file=sys.stderr)
    for name, first, mean, median, p99 in rows:
        print(f"{name:34} {first:8.1f} {mean:8.2f} {median:8.2f} {p99:8.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
