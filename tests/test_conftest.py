"""tests/conftest.py's rule for CI: with ``CI=true`` a skipped test fails the run, whichever way
it was skipped, and names itself and its reason; without it a skip is a skip. An expected
failure is not a skip. Each case is a pytest session of its own (pytester) under this
directory's conftest, as the suite runs under it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()

#: Test modules by how they are skipped, always with the reason "not here".
SKIPPED = {how: textwrap.dedent(body) for how, body in {
    "marker": """
        @pytest.mark.skip(reason="not here")
        def test_it():
            pass
    """,
    "skipif": """
        @pytest.mark.skipif(True, reason="not here")
        def test_it():
            pass
    """,
    "call": """
        def test_it():
            pytest.skip("not here")
    """,
    "fixture": """
        @pytest.fixture
        def missing():
            pytest.skip("not here")

        def test_it(missing):
            pass
    """,
    "importorskip": """
        def test_it():
            pytest.importorskip("a_module_nobody_has", reason="not here")
    """,
    "module": """
        pytest.skip("not here", allow_module_level=True)

        def test_it():
            pass
    """,
}.items()}


def run(pytester: pytest.Pytester, **modules: str) -> pytest.RunResult:
    """A session of ``modules`` (test_<name>.py) and one that passes (a run collects tests
    whatever the others do), under this directory's conftest."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(**{f"test_{name}": "import pytest\n" + body for name, body in modules.items()},
                        test_passing="def test_passing():\n    pass\n")
    return pytester.runpytest()


def test_each_kind_of_skip_fails_a_ci_run_naming_the_test_and_its_reason(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    result = run(pytester, **SKIPPED)
    result.assert_outcomes(passed=1, skipped=len(SKIPPED))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        f"*= {len(SKIPPED)} skipped in CI, which fails the run =*",
        "CI=true: every dependency is installed, so no test may be skipped.",
    ])
    for how in SKIPPED:  # the module's skip is reported at collection, before the tests' skips
        result.stdout.fnmatch_lines([f"SKIPPED test_{how}.py*: test_{how}.py:*: not here"])


@pytest.mark.parametrize("ci", [None, "false", "1"])
def test_a_skip_is_a_skip_outside_ci(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                     ci: str | None) -> None:
    """Only ``CI=true`` (what ``.ci/run`` exports) turns the rule on."""
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    result = run(pytester, **SKIPPED)
    result.assert_outcomes(passed=1, skipped=len(SKIPPED))
    assert result.ret == pytest.ExitCode.OK
    assert "skipped in CI" not in result.stdout.str()


def test_an_expected_failure_passes_a_ci_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    result = run(pytester, module="""
@pytest.mark.xfail(strict=True, reason="known")
def test_known():
    assert False
""")
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    assert "skipped in CI" not in result.stdout.str()


def test_a_failing_ci_run_lists_its_skips_too(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    result = run(pytester, module="""
def test_failing():
    assert False

def test_skipped():
    pytest.skip("not here")

@pytest.mark.skip(reason="nor here")
def test_skipped_too():
    pass
""")
    result.assert_outcomes(passed=1, failed=1, skipped=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*= 2 skipped in CI, which fails the run =*",
        "*",
        "SKIPPED test_module.py::test_skipped: test_module.py:7: not here",
        "SKIPPED test_module.py::test_skipped_too: test_module.py:9: nor here",
    ])
