"""The client-bound verdict (``loadtests/cpu.py``) on CPU samples shaped like ``Sampler``'s,
the sampler itself on real processes, and how ``run.py`` reports a client-bound run."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

import cpu
from cpu import Sampler, judge, locust_processes_for
from run import CLIENT_BOUND_THRESHOLD_MISSED, THRESHOLD_MISSED, RunResult, print_summary


def samples(server: list[float | None], locust: list[list[float]], others: float = 0.0, seconds: float = 2.0,
            server_wait: float = 0.0, locust_wait: float = 0.0) -> list[dict]:
    """Cumulative samples from per-interval use (cores): the server's CPU (None: unknown), each
    Locust process's, the host's other processes'; the server's and each Locust process's
    run-queue wait (constant)."""
    processes = range(len(locust[0]))
    out = [{"time": 0.0, "locust_cpu_seconds": {str(pid): 0.0 for pid in processes},
            "locust_wait_seconds": {str(pid): 0.0 for pid in processes}, "host_cpu_seconds": 0.0}]
    if server[0] is not None:
        out[0].update(cpu_seconds=0.0, wait_seconds=0.0)
    for step, (server_cores, locust_cores) in enumerate(zip(server, locust), 1):
        before = out[-1]
        sample = {"time": step * seconds,
                  "locust_cpu_seconds": {str(pid): before["locust_cpu_seconds"][str(pid)] + cores * seconds
                                         for pid, cores in enumerate(locust_cores)},
                  "locust_wait_seconds": {str(pid): before["locust_wait_seconds"][str(pid)] + locust_wait * seconds
                                          for pid in processes},
                  "host_cpu_seconds": before["host_cpu_seconds"] + ((server_cores or 0.0) + sum(locust_cores) + others) * seconds}
        if server_cores is not None:
            sample["cpu_seconds"] = before["cpu_seconds"] + server_cores * seconds
            sample["wait_seconds"] = before["wait_seconds"] + server_wait * seconds
        out.append(sample)
    return out


def test_locust_saturated_while_the_server_idles_is_client_bound() -> None:
    # The run: fakeapi at 10-35 % of its core, one Locust process pegged.
    verdict = judge(samples([0.1, 0.35, 0.2, 0.3, 0.25], [[1.0]] * 5))
    assert verdict.bound == "client-bound" and verdict.client_bound
    assert verdict.client_bound_share == pytest.approx(1.0)
    assert verdict.server_cpu == pytest.approx(0.24) and verdict.server_cpu_peak == pytest.approx(0.35)
    assert verdict.locust_cpu == pytest.approx(1.0) and verdict.locust_processes == 1
    assert verdict.sentence().startswith("CLIENT-BOUND: ")
    assert "fakeapi used 24% of its core (peak 35%), busy 24%" in verdict.sentence()


def test_a_starved_locust_is_saturated() -> None:
    """On a shared host Locust may get 60 % of a core and wait for one the rest of the time:
    it is the bottleneck all the same, while a server that is idle half the time is not."""
    verdict = judge(samples([0.3, 0.3, 0.3], [[0.6]] * 3, others=1.1, server_wait=0.2, locust_wait=0.35))
    assert verdict.bound == "client-bound"
    assert verdict.locust_cpu == pytest.approx(0.6) and verdict.locust_busy == pytest.approx(0.95)
    assert verdict.server_busy == pytest.approx(0.5)
    assert "other processes on this host used 1.1 cores" in verdict.sentence()
    # A server starved the same way is saturated: the run is not Locust's fault.
    assert judge(samples([0.6] * 3, [[0.6]] * 3, server_wait=0.35, locust_wait=0.35)).bound == "server-bound"


def test_one_saturated_worker_of_several_is_enough() -> None:
    # A master and two workers; one worker pegged for 2 of 5 intervals: its users wait on it.
    locust = [[0.02, 0.5, 0.95], [0.02, 0.5, 0.97], [0.02, 0.5, 0.4], [0.02, 0.5, 0.4], [0.02, 0.5, 0.4]]
    verdict = judge(samples([0.5] * 5, locust))
    assert verdict.bound == "client-bound"
    assert verdict.client_bound_share == pytest.approx(0.4)
    assert verdict.locust_processes == 3
    assert verdict.locust_cpu == pytest.approx((0.95 + 0.97 + 0.5 * 3) / 5)  # the busiest, interval by interval


def test_both_saturated_is_server_bound() -> None:
    """Locust busy while the server is saturated measured the server: it could not go faster."""
    verdict = judge(samples([0.97, 0.99, 0.95], [[0.95], [0.99], [0.9]]))
    assert verdict.bound == "server-bound" and not verdict.client_bound
    assert verdict.server_saturated_share == pytest.approx(1.0)
    assert verdict.client_bound_share == 0


def test_server_saturated_client_idle_is_server_bound() -> None:
    verdict = judge(samples([0.95, 0.98, 0.6], [[0.3], [0.3], [0.2]]))
    assert verdict.bound == "server-bound"
    assert verdict.server_saturated_share == pytest.approx(2 / 3)
    assert verdict.sentence().startswith("server-bound: fakeapi was saturated (busy >= 90%) for 67% of the run")


def test_brief_saturation_is_not_a_verdict() -> None:
    """Under CLIENT_BOUND_SHARE of the run (a start-up spike) does not make a run client-bound."""
    verdict = judge(samples([0.2] * 20, [[1.0]] + [[0.3]] * 19))
    assert verdict.client_bound_share == pytest.approx(0.05)
    assert verdict.bound == "not saturated"
    assert verdict.sentence().startswith("not saturated: fakeapi used 20% of its core")


def test_server_cpu_unknown_counts_saturated_locust_as_client_bound() -> None:
    """With --url the server is not a process here: Locust pegged may be the bottleneck, so
    the run is not taken as the server's."""
    verdict = judge(samples([None, None, None], [[0.99], [0.99], [0.5]]))
    assert verdict.bound == "client-bound" and verdict.server_cpu is None
    assert "fakeapi's CPU unknown" in verdict.sentence()


def test_server_cores_and_other_processes() -> None:
    # A server with two worker processes' worth of cores at 1.0 core is half busy, not saturated.
    verdict = judge(samples([1.0, 1.0], [[0.95], [0.95]], others=0.8), server_cores=2)
    assert verdict.bound == "client-bound" and verdict.server_cpu == pytest.approx(0.5)
    assert verdict.others_cpu == pytest.approx(0.8)
    assert "other processes on this host used 0.8 cores" in verdict.sentence()


def test_too_few_samples_is_unknown() -> None:
    assert judge([]).bound == "unknown"
    assert judge(samples([0.5], [[0.5]])[:1]).bound == "unknown"
    assert "unknown" in judge([]).sentence()


def test_processes_left_after_the_server() -> None:
    assert locust_processes_for(cores=2) == 1
    assert locust_processes_for(cores=8) == 7
    assert locust_processes_for(cores=1) == 1
    assert locust_processes_for(server_cores=4, cores=8) == 4


def test_sampler_reads_a_busy_process_tree() -> None:
    """The sampler follows the Locust process's children (``--processes`` forks them): a
    parent that spins a child shows the child saturated (busy: on a core or waiting for one,
    however loaded the host) and itself idle."""
    spin = "import time\nend = time.time() + 4\nwhile time.time() < end: pass\n"
    parent = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {spin!r}])"])
    sampler = Sampler("http://127.0.0.1:1", server_pid=None, locust_pid=parent.pid)
    original = cpu.SAMPLE_INTERVAL_SECONDS
    cpu.SAMPLE_INTERVAL_SECONDS = 0.5
    try:
        sampler.start()
        time.sleep(2.5)
        sampler.stop()
    finally:
        cpu.SAMPLE_INTERVAL_SECONDS = original
        parent.wait()
    spans = cpu.intervals(sampler.samples[1:])  # from the first sample that saw the child
    child = [pid for pid in sampler.samples[-1]["locust_cpu_seconds"] if pid != str(parent.pid)]
    assert len(child) == 1
    assert max(span.locust_busy.get(child[0], 0.0) for span in spans) > 0.8
    assert all(span.locust_busy.get(str(parent.pid), 0.0) < 0.2 for span in spans)
    assert all("host_cpu_seconds" in sample for sample in sampler.samples)
    assert all(sample["locust_wait_seconds"].keys() == sample["locust_cpu_seconds"].keys() for sample in sampler.samples)


def test_a_missed_threshold_on_a_client_bound_run_is_not_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    verdict = judge(samples([0.2] * 3, [[1.0]] * 3))
    summary = {"profile": "list-storm", "request_types": {},
               "thresholds": [{"type": "LIST", "percentile": 0.99, "limit_ms": 30000.0, "value_ms": 41000, "passed": False}]}
    print_summary(RunResult(Path("out"), CLIENT_BOUND_THRESHOLD_MISSED, summary, verdict))
    out = capsys.readouterr().out
    assert "threshold LIST p99 <= 30000 ms: MISSED on a client-bound run: not judged (41000)" in out
    assert "CLIENT-BOUND:" in out
    assert (THRESHOLD_MISSED, CLIENT_BOUND_THRESHOLD_MISSED) == (3, 4)
