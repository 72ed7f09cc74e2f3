"""The whole differential suite (``tests/kasdiff``: the same requests to fakeapi and to the real
kube-apiserver v1.35.4 over etcd 3.6.6, every answer compared) against fakeapi as two API
workers over a store process: what holds for one process holds across workers, kube-apiserver
judging. Run as its own pytest session, with ``KASDIFF_FAKEAPI_ARGS``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(1200)
def test_the_differential_suite_passes_over_two_workers() -> None:
    env = {**os.environ, "KASDIFF_FAKEAPI_ARGS": "--workers 2"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "tests/kasdiff"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1150,
    )
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-2000:]
    assert result.returncode == 0, f"{summary}\n{result.stdout[-8000:]}"
