"""controller-runtime v0.23.3's own envtest suites of envtest itself and of what a controller uses
(pkg/envtest, client, cache, manager, builder, controller, webhook), built from the Go module proxy by `make envtest-suites`'
runner (scripts/envtest_suites.py) and run on ``fakeapi envtest``'s executables: every spec passes,
and as many pass as on the real kube-apiserver v1.35.4 + etcd (``KUBE_PASSES``, from `make
envtest-suites`, which runs both and names any spec fakeapi fails that kube passes). The counts
guard against a run that passes because it ran less."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from fakeapi.cli.envtest import write_assets
from fakeapi.cluster.control_plane import kube_binaries

# The runner is a script, not a package: imported from its directory, as it runs.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import envtest_suites as runner  # noqa: E402

#: Specs each package's suite passes on the real binaries (2026-11-29, `make envtest-suites`).
KUBE_PASSES = {"envtest": 28, "client": 295, "cache": 276, "manager": 106, "builder": 82, "controller": 32, "webhook": 8}
#: Specs whose outcome is a race in the spec itself, by their last words and a text their failure
#: shows (empty: any): these run once more, alone, when they fail so, and must pass then.
#: pkg/cache's two "cancelled" specs ask a new informer with a context already cancelled and expect
#: a timeout: controller-runtime's ``Informers.Get`` returns the informer instead when it has synced
#: by the time it looks (``HasSynced``, then client-go's ``WaitForCacheSync``, whose poll looks once
#: before it reads the closed channel). The informer lists and watches in a goroutine of its own from
#: the moment it is made, so a test goroutine descheduled for the millisecond a LIST of a few pods
#: takes on fakeapi finds it synced (seen once, on a CI machine running a fake cluster beside the
#: suite); on kube the LIST takes longer. pkg/webhook's three integration specs each start a webhook
#: server on the suite's one port (``WebhookInstallOptions.LocalServingPort``) and end by cancelling
#: its context, which shuts the server down in a goroutine of its own: the next such spec's server
#: may bind the port before the last one has closed it, ``bind: address already in use`` (seen once,
#: its timeline logging the previous server's shutdown as its own server started; the sooner
#: ``manager.New``'s discovery is answered, the sooner the next server binds).
RACES = {
    "cache": (("should allow for get informer to be cancelled", ""),
              ("should allow getting an informer by group/version/kind to be cancelled", "")),
    "webhook": (("should reject create request for webhook that rejects all requests", "bind: address already in use"),
                ("should reject create request for multi-webhook that rejects all requests",
                 "bind: address already in use")),
}


def _raced(package: str, spec: runner.Spec) -> bool:
    return any(spec.name.endswith(ending) and text in spec.failure for ending, text in RACES.get(package, ()))


def _go_literal(text: str) -> str:
    """``text`` as a Go regular expression that matches it alone (``regexp.QuoteMeta``: Python's
    ``re.escape`` also escapes spaces, which Go's syntax refuses)."""
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", text)


@pytest.fixture(scope="module")
def suites() -> Path:
    return runner.build(tuple(KUBE_PASSES))


@pytest.fixture(scope="module")
def fakeapi_assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("assets")
    write_assets(directory, str(kube_binaries("kubectl") / "kubectl"))
    return directory


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("package", KUBE_PASSES)
def test_controller_runtime_suite_passes_on_fakeapi(package: str, suites: Path, fakeapi_assets: Path,
                                                    tmp_path: Path) -> None:
    run = runner.run_suite(suites, package, "fakeapi", fakeapi_assets, tmp_path, focus="")
    assert not run.error, run.error
    failed = [spec for spec in run.specs if spec.state in runner.FAILED_STATES]
    raced = [spec for spec in failed if _raced(package, spec)]
    passed = run.passed
    if raced and len(raced) == len(failed):
        print(f"pkg/{package}: once more, alone (a race in the spec): {[spec.name for spec in raced]}")
        (tmp_path / "again").mkdir()
        # ginkgo's focus finds a spec by any part of its text: a name may run others it is part of.
        again = runner.run_suite(suites, package, "fakeapi", fakeapi_assets, tmp_path / "again",
                                 focus="|".join(_go_literal(spec.name) for spec in raced))
        assert not again.error, again.error
        failed = [spec for spec in again.specs if spec.state in runner.FAILED_STATES]
        names = {spec.name for spec in raced}
        passed += sum(spec.state == "passed" and spec.name in names for spec in again.specs)
    assert not failed, "\n".join(f"{spec.name}: {spec.message}" for spec in failed)
    assert passed == KUBE_PASSES[package], (f"pkg/{package}: {passed} specs passed on fakeapi, "
                                            f"{KUBE_PASSES[package]} on the real binaries")
