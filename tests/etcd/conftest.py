"""Fixtures of the etcd gRPC tests: the real etcd and etcdctl v3.6.6 (built once per machine by
``scripts/build-kube.sh``; a failed build fails the tests), a real etcd per test, and fakeapi's
etcd server per test (``fakeapi etcd`` as a subprocess on a free port).

The real etcd is started by ``EtcdProcess`` of tests/store/etcd_process.py (tmpfs data dir,
``--unsafe-no-fsync``, free loopback ports); that directory is not a package, so it is put on
``sys.path`` here.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "store"))

from etcd_process import EtcdProcess  # noqa: E402

from fakeapi.testing.etcd import FakeEtcdProcess  # noqa: E402


def build_kube(*names: str) -> Path:
    """``scripts/build-kube.sh NAMES``: the bin directory; seconds when already built."""
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build-kube.sh"), *names],
        capture_output=True, text=True, timeout=3600,
    )
    if result.returncode != 0:
        pytest.fail(f"scripts/build-kube.sh {' '.join(names)} failed:\n{result.stderr[-4000:]}",
                    pytrace=False)
    return Path(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def etcd_bin() -> Path:
    return build_kube("etcd", "etcdctl")


@pytest.fixture
def real_etcd(etcd_bin: Path) -> Iterator[str]:
    """A fresh real etcd v3.6.6; yields its client URL."""
    proc = EtcdProcess(str(etcd_bin / "etcd"))
    proc.start()
    try:
        yield proc.client_url
    finally:
        proc.stop()


@pytest.fixture
def fake_etcd() -> Iterator[str]:
    """A fresh ``fakeapi etcd``; yields its client URL."""
    proc = FakeEtcdProcess()
    proc.start()
    try:
        yield proc.client_url
    finally:
        proc.stop()
