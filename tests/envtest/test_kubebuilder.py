"""A project kubebuilder v4 scaffolds, tested on ``fakeapi envtest``'s executables as its author
tests it: ``kubebuilder init``, ``create api``, ``create webhook --defaulting
--programmatic-validation`` (kubebuilder v4.16.0 from the Go module proxy: controller-runtime
v0.25, client-go v0.37), the webhook's TODOs filled with a defaulting and a validating rule
(kubebuilder/testdata/), then the generated ``make test``: controller-gen, go vet,
setup-envtest finding fakeapi's executables where it keeps what it downloads
(``bin/k8s/1.35.4-linux-amd64``: ``ENVTEST_K8S_VERSION=1.35.4`` asks for the release fakeapi
emulates), and the controller's and webhooks' envtest suites. The webhook suite's specs, run
again on the real kube-apiserver v1.35.4 + etcd, see the same answers (defaults, the webhook's
refusal as kube words it, warnings)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fakeapi.cluster.control_plane import kube_binaries

KUBEBUILDER = "sigs.k8s.io/kubebuilder/v4@v4.16.0"
TESTDATA = Path(__file__).resolve().parent / "kubebuilder" / "testdata"
#: The version directory setup-envtest's store keeps a release's executables in.
ENVTEST_K8S_VERSION = "1.35.4"
WEBHOOK_PACKAGE = "./internal/webhook/v1/"


def _run(command: list[str], cwd: Path, **env: str) -> str:
    """``command``'s output; Go from the machine's PATH or its usual place, ``env`` added."""
    env = {**os.environ, "PATH": os.pathsep.join((os.environ["PATH"], "/usr/local/go/bin")), **env}
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def kubebuilder() -> Path:
    """kubebuilder, installed from the module proxy once per machine (next to the kube binaries)."""
    tools = kube_binaries("kubectl").parent / "tools" / KUBEBUILDER.replace("/", "_").replace("@", "-")
    binary = tools / "kubebuilder"
    if not binary.exists():
        tools.mkdir(parents=True, exist_ok=True)
        _run(["go", "install", KUBEBUILDER], tools, GOBIN=str(tools))
    return binary


@pytest.fixture(scope="module")
def project(kubebuilder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scaffolded project, its webhook's rules and API specs in place, fakeapi's executables
    in setup-envtest's store."""
    # The directory's name is the project's (a DNS label).
    root = tmp_path_factory.mktemp("kubebuilder") / "guestbook"
    root.mkdir()
    kb = str(kubebuilder)
    _run([kb, "init", "--domain", "fakeapi.dev", "--repo", "example.com/guestbook"], root)
    _run([kb, "create", "api", "--group", "webapp", "--version", "v1", "--kind", "Guestbook",
          "--resource", "--controller"], root)
    _run([kb, "create", "webhook", "--group", "webapp", "--version", "v1", "--kind", "Guestbook",
          "--defaulting", "--programmatic-validation"], root)
    for source in TESTDATA.iterdir():
        shutil.copy(source, root / "internal" / "webhook" / "v1" / source.name)
    store = root / "bin" / "k8s" / f"{ENVTEST_K8S_VERSION}-linux-amd64"
    _run([sys.executable, "-m", "fakeapi.cli", "envtest", str(store),
          "--kubectl", str(kube_binaries("kubectl") / "kubectl")], root)
    return root


def _webhook_outcomes(project: Path, assets: Path) -> list[dict[str, object]]:
    """What the webhook suite's specs saw (their ``outcome:`` lines), run on ``assets``."""
    output = _run(["go", "test", "-count=1", WEBHOOK_PACKAGE, "-v", "-args", "-ginkgo.v"], project,
                  KUBEBUILDER_ASSETS=str(assets))
    assert re.search(r"Ran 3 of 3 Specs", output), output[-4000:]
    return [json.loads(line) for line in re.findall(r"outcome: (\{.*\})", output)]


@pytest.mark.timeout(2400)
def test_generated_make_test_passes_on_fakeapi(project: Path) -> None:
    output = _run(["make", "test", f"ENVTEST_K8S_VERSION={ENVTEST_K8S_VERSION}"], project)
    # setup-envtest answered with the store's directory (fakeapi's), and both suites ran on it.
    assert f"bin/k8s/{ENVTEST_K8S_VERSION}-linux-amd64" in output, output[-4000:]
    for package in ("internal/controller", "internal/webhook/v1"):
        assert re.search(rf"^ok\s+example.com/guestbook/{package}\s", output, re.MULTILINE), output[-4000:]


@pytest.mark.timeout(1200)
def test_webhook_specs_see_what_they_see_on_the_real_server(project: Path) -> None:
    fakeapi = project / "bin" / "k8s" / f"{ENVTEST_K8S_VERSION}-linux-amd64"
    real = kube_binaries("kube-apiserver", "etcd", "kubectl")
    outcomes = {name: _webhook_outcomes(project, assets) for name, assets in (("fakeapi", fakeapi), ("kube", real))}
    assert len(outcomes["kube"]) == 4
    assert outcomes["fakeapi"] == outcomes["kube"]
