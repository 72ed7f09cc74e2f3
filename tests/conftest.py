"""Fixtures shared by every test directory."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

GO_FALLBACK_DIR = "/usr/local/go/bin"


def _go() -> str:
    go = shutil.which("go") or shutil.which("go", path=GO_FALLBACK_DIR)
    if go is None:
        pytest.fail("Go is required to build the Go test programs (make test installs it)")
    return go


@pytest.fixture(scope="session")
def go_build() -> Callable[[Path, str], Path]:
    """Builds a Go test program: ``go_build(module_dir, "./cmd/x")`` -> ``module_dir/bin/x``.
    Go's build cache makes a rebuild of an unchanged program a fraction of a second."""
    built: dict[tuple[Path, str], Path] = {}

    def build(module_dir: Path, package: str) -> Path:
        key = (module_dir, package)
        if key not in built:
            output = module_dir / "bin" / Path(package).name
            result = subprocess.run(
                [_go(), "build", "-o", str(output), package], cwd=module_dir,
                capture_output=True, text=True,
            )
            if result.returncode != 0:
                pytest.fail(f"go build {package} in {module_dir} failed:\n{result.stderr}")
            built[key] = output
        return built[key]

    return build
