"""``tests:new``: real pytest runs judged against a loop session's baseline."""

from __future__ import annotations

from pathlib import Path

from ralph_verify import hookimpl
from ralph_verify.checks.api import CheckResult, Failure, Status
from ralph_verify.checks.verification import Verification
from ralph_verify.config import Config
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.loop.session import Session
from ralph_verify.loop.settings import SessionSettings
from ralph_verify.testing import Ralph

SUITE = """
    def test_old():
        assert 1 == 2

    def test_ok():
        assert True
"""


class InSession:
    """Puts a loop session into the run, as ``ralph-verify run`` does before it verifies."""

    def __init__(self, root: Path, baseline: Verification | None) -> None:
        self.root = root
        self.baseline = baseline

    @hookimpl
    def ralph_configure(self, config: Config) -> None:
        config.stash[SESSION_KEY] = Session(
            id="s1", root=self.root, dir=self.root / ".ralph", config=config,
            settings=SessionSettings((), "t", 3), baseline=self.baseline)


def _baseline(root: Path, *failing: str) -> Verification:
    failures = [Failure(message="assert 1 == 2", location=f"tests/test_a.py::{name}")
                for name in failing]
    result = CheckResult("tests", "tests:new", Status.FAILED, "1 failed", failures=failures)
    return Verification(root=root, results=[result])


def _check(ralph: Ralph, baseline: Verification | None, spec: str = "tests:new") -> dict[
        str, object]:
    result = ralph.run("check", "--until", spec, "--json", "-q",
                       plugins=[InSession(ralph.path, baseline)])
    data: dict[str, object] = result.json()["checks"][0]
    data["ret"] = result.ret
    return data


def test_outside_a_loop_it_errors_without_running_the_suite(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_a": SUITE})
    result = ralph.run("check", "--until", "tests:new")
    assert result.ret == 2  # a usage error, decided before anything runs
    assert "'tests:new' judges against a session's baseline, so it works only in a loop" \
        in result.err
    assert not (ralph.path / ".pytest_cache").exists()


def test_an_unknown_argument_is_an_error(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "tests:old")
    assert result.ret == 2
    assert "check 'tests' accepts only tests:new" in result.err


def test_at_the_baseline_every_failure_is_pre_existing(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_a": SUITE})
    data = _check(ralph, None)
    assert data["ret"] == 0
    assert data["status"] == "passed"
    assert data["summary"] == ("baseline: 1 failed, 1 passed; 1 failing recorded as "
                               "pre-existing, later only new failures count")
    failures = data["failures"]
    assert isinstance(failures, list)
    assert [(f["location"], f["pre_existing"]) for f in failures] == [
        ("tests/test_a.py::test_old", True)]


def test_failures_already_there_at_the_baseline_are_allowed(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_a": SUITE})
    data = _check(ralph, _baseline(ralph.path, "test_old"))
    assert (data["ret"], data["status"]) == (0, "passed")
    assert data["summary"] == "no new failures (1 pre-existing allowed): 1 failed, 1 passed"


def test_a_test_that_passed_at_the_baseline_and_now_fails_is_new(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_a": SUITE.replace("assert True", "assert False")})
    data = _check(ralph, _baseline(ralph.path, "test_old"))
    assert (data["ret"], data["status"]) == (1, "failed")
    assert data["summary"] == "1 new failing (1 pre-existing allowed): 2 failed, 0 passed"
    failures = data["failures"]
    assert isinstance(failures, list)
    assert sorted((f["location"], f["pre_existing"]) for f in failures) == [
        ("tests/test_a.py::test_ok", False), ("tests/test_a.py::test_old", True)]


def test_the_threshold_always_counts(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_a": SUITE})
    data = _check(ralph, None, "tests:new>=2")
    assert (data["ret"], data["status"]) == (1, "failed")
    failures = data["failures"]
    assert isinstance(failures, list)
    assert [f["pre_existing"] for f in failures if f["location"] is None] == [False]
