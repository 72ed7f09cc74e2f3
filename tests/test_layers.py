"""The layer contract (pyproject.toml's [tool.importlinter]): every import in fakeapi/ points
down the layers, nothing in fakeapi/ imports fakeapi.testing, and http/ builds no controller
(the composition root, fakeapi.server, does). A new upward import fails here,
naming the importing and the imported module and the line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's check of the fakeapi package under ``tree``, by ``tree``'s pyproject.toml."""
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
         "--no-cache"], cwd=tree, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})


def test_imports_point_down_the_layers() -> None:
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_an_upward_import_breaks_the_contract(tmp_path: Path) -> None:
    """The contract can fail: the same check on a copy of the tree where store/ imports http/."""
    shutil.copytree(ROOT / "fakeapi", tmp_path / "fakeapi", ignore=shutil.ignore_patterns("__pycache__", "*.gz"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "fakeapi" / "store" / "upward.py").write_text("from ..http import app\n")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0
    assert "fakeapi.store is not allowed to import fakeapi.http" in result.stdout
    assert "fakeapi.store.upward -> fakeapi.http.app" in result.stdout
