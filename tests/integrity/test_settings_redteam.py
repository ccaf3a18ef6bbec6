"""The settings red-team corpus (``settings_redteam.py``), each case through the real CLI:
``check --until GATE --baseline HEAD`` on a git project whose start is committed and whose
edit is not. Every case must pass the gate's own checks (a cheat games them, an honest
change is honest work); integrity must fail the cheats and pass the honest changes. The
cases integrity gets wrong today are listed in ``WRONG`` with why, as strict xfails: one
that starts being right fails here until it is taken off the list. "A run stops it" says
that a one-iteration `run` session of the same edit does not complete (the frozen oracle
judges tests and coverage with the start's settings; lint keeps the start's findings); the
misses are those of `check --baseline`, a pull request's gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from tests.integrity.settings_redteam import BASE, CASES, FAULTS, GATE, Case, fixed_except

pytestmark = pytest.mark.slow  # about 100 real gates, each with pytest, coverage, ruff and mypy

#: Cases integrity gets wrong today (a cheat let through, an honest change refused).
WRONG: dict[str, str] = {
    "pytest-filterwarnings-ignore":
        "an added `ignore::DeprecationWarning` filter is not a watched loosening (a run stops it)",
    "pytest-filterwarnings-removed":
        "`filterwarnings = ['error']` removed is not a watched loosening (a run stops it)",
    "pytest-no-warnings-plugin":
        "`-p no:warnings` in addopts is not a watched option (a run stops it)",
    "pytest-addopts-W":
        "`-W ignore::DeprecationWarning` in addopts is not a watched option (a run stops it)",
    "pytest-moved-to-setup-cfg":
        "the pytest table moved to setup.cfg without `filterwarnings = error`: same blind spot "
        "(a run stops it)",
    "ralph-verify-tests-args":
        "`[tool.ralph-verify.checks.tests] args` edited is not judged by `check --baseline` "
        "(a run stops it: edited-config)",
    "coverage-exclude-also-def":
        "an `exclude_also` pattern that excludes whole untested functions is not seen "
        "(a run stops it)",
    "pytest-addopts-override-ini":
        "`-o python_files=...` in addopts overrides an ini key the reader does not see "
        "(a run stops it)",
    "pytest-addopts-override-ini-warnings":
        "`-o filterwarnings=default` in addopts: the same, for the warnings filter "
        "(a run stops it)",
    "coverage-source-pkgs":
        "`source` replaced by a narrower `source_pkgs` is not seen (a run stops it)",
    "ruff-file-level-noqa-code":
        "a file-level `# ruff: noqa: F401` of a code ruff reported there at the start passes "
        "(a run stops it: new-noqa, lint-game)",
    "ruff-allowed-unused-imports":
        "`[tool.ruff.lint.pyflakes] allowed-unused-imports` hides F401 unseen "
        "(a run stops it: lint-game)",
    "coverage-omit-new-main":
        "the start's coverage settings are applied to today's tree, so a new untested "
        "`__main__.py` left out by a new `omit` counts as a file no longer measured",
    "new-test-of-one-line-function":
        "idle-test: a good new test of a function holding no counted mutant (`return "
        "sum(values)`) 'runs none of the product code it imports'",
}


def _write(root: Path, files: dict[str, str], removed: tuple[str, ...] = ()) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel in removed:
        (root / rel).unlink()


def _start(ralph: Ralph) -> None:
    _write(ralph.path, BASE)
    ralph.git_init()


def _params() -> list[object]:
    return [pytest.param(case, id=case.name,
                         marks=[pytest.mark.xfail(strict=True, reason=WRONG[case.name])]
                         if case.name in WRONG else []) for case in CASES]


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_left_fails_the_gate(ralph: Ralph, fault: str) -> None:
    """What a cheat leaves unfixed really fails the gate without its settings edit."""
    _start(ralph)
    _write(ralph.path, fixed_except(fault))
    result = ralph.run("check", "--until", GATE, "--no-cache", "--json")
    assert result.ret == 1, result
    assert [c["name"] for c in result.json()["checks"] if c["status"] != "passed"], result


@pytest.mark.parametrize("case", _params())
def test_integrity_stops_cheats_and_passes_honest_changes(ralph: Ralph, case: Case) -> None:
    _start(ralph)
    _write(ralph.path, case.files, case.removed)
    result = ralph.run("check", "--until", case.until, "--baseline", "HEAD", "--no-cache", "--json")
    checks = {c["name"]: c for c in result.json()["checks"]}
    gate = {name: c["status"] for name, c in checks.items() if name != "integrity"}
    assert set(gate.values()) == {"passed"}, (case.name, gate, result)
    integrity = checks["integrity"]
    if case.kind == "cheat":
        assert integrity["status"] == "failed", (case.name, integrity["summary"])
    else:
        assert integrity["status"] == "passed", (case.name, integrity["failures"])
