"""What the pytest plugin's fixtures are made of: how a test's server starts (``StartOptions``)
and the embedded server a group of tests shares (``SharedServer``). Kept apart from
``plugin.py`` so that merely having fakeapi installed costs a pytest run no server imports."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..faults.engine import parse_cli_spec
from ..server import ServerConfig
from ..auth.authentication import ADMIN_TOKEN
from ..seed.seeder import SeedSpec
from .client import FakeAPI, Manifests
from .embedded import EmbeddedServer
from .on_loop import OnLoop
from .report import USER_AGENT, check_detectors

MARKER = "fakeapi"
HTTP_TIMEOUT = 30.0

#: Manifests for ``FakeAPI.apply``; a synthetic cluster for ``FakeAPI.seed`` (a ``SeedSpec``,
#: or a mapping of its counts such as ``{"namespaces": 3, "pods": 100}``, told apart from a
#: manifest by having no ``kind``); or a callable that fills the fresh server.
Seed = Manifests | SeedSpec | Callable[[FakeAPI], object]
#: A fault as ``fakeapi.faults.apply`` takes it (``{"type": "error", "code": 429, ...}``), as
#: ``fakeapi serve --fault`` does (``"error:verb=list,code=429"``), or a callable given
#: ``fakeapi.faults``.
FaultSetup = Mapping[str, object] | str | Callable[[OnLoop], object]


@dataclasses.dataclass(frozen=True, slots=True)
class StartOptions:
    """How a test's server starts: the marker's keyword arguments, or ``fakeapi``'s indirect
    parameter (a dict with the same keys), which wins key by key."""

    #: A ``ServerConfig``, or a dict of its fields overriding the defaults.
    config: ServerConfig | Mapping[str, Any] | None = None
    seed: Seed | None = None
    faults: Sequence[FaultSetup] = ()
    #: Detectors that must not fire for the test's clients (``fakeapi.clients.DETECTORS``):
    #: checked when the test body has passed, failing it with the findings' evidence.
    forbid: Sequence[str] = ()

    @classmethod
    def of(cls, request: pytest.FixtureRequest) -> StartOptions:
        marker = request.node.get_closest_marker(MARKER)
        given = {**(marker.kwargs if marker else {}), **getattr(request, "param", {})}
        unknown = set(given) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            known = ", ".join(f.name for f in dataclasses.fields(cls))
            raise pytest.UsageError(f"fakeapi: unknown options {sorted(unknown)}; known: {known}")
        options = cls(**given)
        if isinstance(options.forbid, str):
            raise pytest.UsageError("fakeapi: forbid takes a list of detector names, e.g. forbid=['relist-storm']")
        try:
            check_detectors(options.forbid)
        except ValueError as err:
            raise pytest.UsageError(f"fakeapi: forbid: {err}") from None
        return options

    def server_config(self) -> ServerConfig:
        if isinstance(self.config, ServerConfig):
            return self.config
        return dataclasses.replace(ServerConfig(), **(self.config or {}))

    def prepare(self, fakeapi: FakeAPI) -> None:
        """Faults first, so that seeding already runs under them (as a controller would)."""
        for fault in self.faults:
            if callable(fault):
                fault(fakeapi.faults)
            else:
                fakeapi.faults.apply(parse_cli_spec(fault) if isinstance(fault, str) else fault)
        seed = self.seed
        if callable(seed):
            seed(fakeapi)
        elif isinstance(seed, SeedSpec) or (isinstance(seed, Mapping) and "kind" not in seed):
            fakeapi.seed(seed)
        elif seed is not None:
            fakeapi.apply(seed)


@dataclasses.dataclass(frozen=True, slots=True)
class SharedServer:
    """An embedded server and the HTTP client the tests on it share."""

    server: EmbeddedServer
    http: httpx.Client

    @classmethod
    def running(cls, workdir: Path) -> Iterator[SharedServer]:
        """Yields a started server (no app yet), closed when the generator is."""
        # The kubeconfig's administrator, as kubectl and the Python client are.
        with EmbeddedServer(workdir) as server, httpx.Client(
                base_url=server.url, timeout=HTTP_TIMEOUT,
                headers={"user-agent": USER_AGENT, "authorization": f"Bearer {ADMIN_TOKEN}"}) as http:
            yield cls(server, http)

    def handle(self) -> FakeAPI:
        return FakeAPI(self.server, self.http)

    def kubectl_cache_dir(self) -> Path:
        """kubectl caches discovery on disk per host:port, and the port outlives each app's
        CRDs: a directory per app keeps kubectl from seeing an earlier test's resources."""
        return self.server.workdir / "kubectl-cache" / str(self.server.generation)
