"""The etcd client's store timed per call (``storage_timing.Timing``), apart from the in-process
store's so that a server without ``--etcd-servers`` does not load the client (and gRPC) at start."""

from __future__ import annotations

from ..etcd.client import RemoteStore
from .storage_timing import Timing


class TimedRemoteStore(Timing, RemoteStore):  # type: ignore[misc]
    """An etcd client's store, timed (each call's time includes its round trip, as kube's)."""
