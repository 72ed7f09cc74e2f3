"""Fixtures of the etcd gRPC tests: etcd and etcdctl v3.6.6 (built once per machine by
``scripts/build-kube.sh``; a failed build fails the tests), a fresh real etcd per test
(``fakeapi.cluster.control_plane.Etcd``: loopback, free ports, no fsync), and a fresh
``fakeapi etcd`` per test (a subprocess on a free port), named as the real one is.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeapi.cluster.control_plane import ControlPlaneError, Etcd, kube_binaries
from fakeapi.testing.etcd import FakeEtcdProcess

#: The member name ``control_plane.Etcd`` gives the real etcd; ours takes the same.
MEMBER_NAME = "fakeapi-oracle"


@pytest.fixture(scope="session")
def etcd_bin() -> Path:
    try:
        kube_binaries("etcdctl")
        return kube_binaries("etcd")
    except ControlPlaneError as err:
        pytest.fail(str(err), pytrace=False)


@pytest.fixture
def real_etcd(etcd_bin: Path, tmp_path: Path) -> Iterator[str]:
    """A fresh real etcd v3.6.6; yields its client URL."""
    with Etcd(tmp_path / "etcd") as etcd:
        yield etcd.client_url


@pytest.fixture
def fake_etcd() -> Iterator[str]:
    """A fresh ``fakeapi etcd``; yields its client URL."""
    with FakeEtcdProcess(["--name", MEMBER_NAME]) as proc:
        yield proc.client_url
