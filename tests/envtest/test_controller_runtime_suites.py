"""controller-runtime v0.23.3's own envtest suites of what a controller uses (pkg/client, cache,
manager, builder, controller, webhook), built from the Go module proxy by `make envtest-suites`'
runner (scripts/envtest_suites.py) and run on ``fakeapi envtest``'s executables: every spec passes,
and as many pass as on the real kube-apiserver v1.35.4 + etcd (``KUBE_PASSES``, from `make
envtest-suites`, which runs both and names any spec fakeapi fails that kube passes). The counts
guard against a run that passes because it ran less."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fakeapi.cli.envtest import write_assets
from fakeapi.cluster.control_plane import kube_binaries

# The runner is a script, not a package: imported from its directory, as it runs.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import envtest_suites as runner  # noqa: E402

#: Specs each package's suite passes on the real binaries (2026-11-29, `make envtest-suites`).
KUBE_PASSES = {"client": 295, "cache": 276, "manager": 106, "builder": 82, "controller": 32, "webhook": 8}


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
    failed = [f"{spec.name}: {spec.message}" for spec in run.specs if spec.state in runner.FAILED_STATES]
    assert not failed, "\n".join(failed)
    assert run.passed == KUBE_PASSES[package], (f"pkg/{package}: {run.passed} specs passed on fakeapi, "
                                                f"{KUBE_PASSES[package]} on the real binaries")
