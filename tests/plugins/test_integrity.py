"""The integrity check on real project trees: a baseline at session start, then what got weaker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_verify import hookimpl
from ralph_verify.checks.api import CheckResult, Status
from ralph_verify.checks.verification import Verification
from ralph_verify.config import Config
from ralph_verify.integrity import sources
from ralph_verify.integrity.settings import read_all
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.loop.session import Session
from ralph_verify.loop.settings import SessionSettings
from ralph_verify.plugins import integrity
from ralph_verify.startup import get_config
from ralph_verify.testing import Ralph

PYPROJECT = """
    [tool.coverage.report]
    fail_under = 90
    exclude_lines = ["if TYPE_CHECKING:"]

    [tool.ruff.lint]
    select = ["E", "F"]
    ignore = [
        "E501",
    ]

    [tool.mypy]
    strict = true

    [tool.pytest.ini_options]
    addopts = "--strict-markers"
"""
APP = """
    def add(a: int, b: int) -> int:
        return a + b  # noqa: E501
"""
TESTS = """
    from app import add


    def test_add():
        assert add(1, 2) == 3


    def test_add_zero():
        assert add(0, 0) == 0


    class TestMore:
        def test_negative(self):
            assert add(-1, 1) == 0
"""


def _project(ralph: Ralph) -> None:
    ralph.makepyproject(PYPROJECT)
    ralph.makepyfile(app=APP, **{"tests/test_app": TESTS, "tests/test_other": """
        def test_other():
            assert True
    """})


def _start_session(ralph: Ralph, session_id: str = "s1",
                   baseline: Verification | None = None) -> Session:
    """Start a session's integrity baseline, as the loop does at ``ralph_session_start``."""
    config = get_config(["check", "--root", str(ralph.path)])
    session = Session(id=session_id, root=ralph.path, dir=ralph.path / ".ralph", config=config,
                      settings=SessionSettings((), "t", 3), baseline=baseline)
    integrity.ralph_session_start(session=session)
    return session


def _failures(ralph: Ralph) -> list[str]:
    result = ralph.run("check", "--until", "integrity", "--json")
    assert result.ret in (0, 1), result
    return [f["message"] for f in result.json()["checks"][0]["failures"]]


def _allow(tool: str, path: str = "pyproject.toml") -> str:
    """What a narrowed setting's message ends with."""
    return (f' (allow it on purpose with allow = ["{path}:{tool}"] in '
            "[tool.ralph-verify.checks.integrity]) (narrowed-setting)")


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_an_unchanged_tree_is_clean(ralph: Ralph) -> None:
    _project(ralph)
    _start_session(ralph)
    result = ralph.run("check", "--until", "integrity")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["PASSED*integrity*nothing weakened since session s1 started "
                                 "(4 tests, 1 markers and suppressions, 6 gating settings)*"])


def test_without_a_session_the_check_is_skipped_with_a_note(ralph: Ralph) -> None:
    _project(ralph)
    result = ralph.run("check", "--until", "integrity")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["SKIPPED*integrity*no baseline*.ralph/integrity-baseline.json*"
                                 "ralph-verify run*"])


def test_a_deleted_test_file_and_fewer_tests_are_caught(ralph: Ralph) -> None:
    _project(ralph)
    _start_session(ralph)
    (ralph.path / "tests/test_other.py").unlink()
    assert _failures(ralph) == [
        "tests/test_other.py was deleted; files matching tests/** (keep) must not be deleted "
        "during the session: restore it (deleted-file; to allow it, leave it out of the "
        "keep/protected globs)",
        "fewer tests than at the session's start: 3 test functions now, 4 then; restore the "
        "tests, do not delete them to pass",
        "test tests/test_other.py::test_other was removed (it was at line 1 at the session's "
        "start): restore it; a renamed test keeps its body, a test deleted with its feature "
        "uses a name gone from the project",
    ]


def test_a_new_skip_marker_is_caught_with_its_line(ralph: Ralph) -> None:
    _project(ralph)
    _start_session(ralph)
    path = ralph.path / "tests/test_app.py"
    path.write_text(path.read_text().replace(
        "def test_add_zero", "import pytest\n@pytest.mark.skip(reason='later')\ndef test_add_zero"))
    line = _line_of(path, "@pytest.mark.skip")
    result = ralph.run("check", "--until", "integrity", "--json")
    assert result.ret == 1
    failure = result.json()["checks"][0]["failures"][0]
    assert failure["message"] == (f"new skip marker `pytest.mark.skip` at tests/test_app.py:"
                                  f"{line}: make the test pass instead of skipping it "
                                  "(new-skip; see docs/integrity.md to allow it on purpose)")
    assert (failure["path"], failure["line"]) == ("tests/test_app.py", line)
    assert failure["detail"] == "@pytest.mark.skip(reason='later')"


def test_a_new_type_ignore_is_caught_but_an_existing_noqa_is_not(ralph: Ralph) -> None:
    _project(ralph)
    _start_session(ralph)
    ralph.makepyfile(app=APP + """
        def half(a: int) -> int:
            return a / 2  # type: ignore
    """)
    line = _line_of(ralph.path / "app.py", "type: ignore")
    assert _failures(ralph) == [
        f"new type: ignore suppression comment `# type: ignore` at app.py:{line} (a blanket "
        "one): fix the type error instead of silencing the type checker (a narrow "
        "`# type: ignore[code]` where the error really fires is allowed) (new-type-ignore; see "
        "docs/integrity.md to allow it on purpose)"]


def test_a_narrow_type_ignore_is_listed_not_failed(ralph: Ralph) -> None:
    _project(ralph)
    _start_session(ralph)
    ralph.makepyfile(app=APP + """
        def half(a: int) -> int:
            return a / 2  # type: ignore[return-value]
    """)
    line = _line_of(ralph.path / "app.py", "type: ignore")
    result = ralph.run("check", "--until", "integrity", "--json")
    assert result.ret == 0, result
    check = result.json()["checks"][0]
    assert not check.get("failures")
    assert f"noted (not failures): app.py:{line}: `# type: ignore[return-value]` (a narrow " \
        "suppression)" in check["summary"]


def test_a_lowered_fail_under_is_caught_at_its_line(ralph: Ralph) -> None:
    _project(ralph)
    _start_session(ralph)
    ralph.makepyproject(PYPROJECT.replace("fail_under = 90", "fail_under = 50"))
    line = _line_of(ralph.path / "pyproject.toml", "fail_under")
    result = ralph.run("check", "--until", "integrity")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        f"*pyproject.toml:{line}: coverage's effective fail_under went from 90 to 50*"])


def test_loosened_lint_type_and_pytest_settings_are_caught(ralph: Ralph) -> None:
    _project(ralph)
    _start_session(ralph)
    ralph.makepyproject(PYPROJECT.replace('"E501",', '"E501",\n    "F401",')
                        .replace("strict = true", "strict = false")
                        .replace('select = ["E", "F"]', 'select = ["E"]')
                        .replace('"--strict-markers"', '"-k \'not slow\'"'))
    toml = ralph.path / "pyproject.toml"
    addopts = _line_of(toml, "addopts")
    assert _failures(ralph) == [
        f"pyproject.toml:{_line_of(toml, 'strict =')}: mypy checks less than at the start: "
        "check_untyped_defs off, disallow_any_generics off, disallow_incomplete_defs off, "
        "disallow_subclassing_any off, disallow_untyped_calls off and 9 more" + _allow("mypy"),
        f"pyproject.toml:{addopts}: pytest's effective options gained '-k not slow', which "
        "takes tests out of the run" + _allow("pytest"),
        f"pyproject.toml:{addopts}: pytest's effective options lost '--strict-markers'"
        + _allow("pytest"),
        f"pyproject.toml:{_line_of(toml, 'select')}: ruff no longer enforces 43 rule(s) it "
        "enforced at the start (F401, F402, F403, F404, F405 and 38 more, of which 0 fire in "
        "the project): fix the code "
        "instead" + _allow("ruff"),
    ]


def test_protected_files_may_not_be_edited(ralph: Ralph) -> None:
    _project(ralph)
    ralph.makepyproject(PYPROJECT + """
        [tool.ralph-verify.checks.integrity]
        protected = ["tests/conftest.py"]
    """)
    ralph.makefile("tests/conftest.py", "collect_ignore = []\n")
    _start_session(ralph)
    ralph.makefile("tests/conftest.py", "collect_ignore = ['test_app.py']\n")
    assert _failures(ralph) == [
        "protected file tests/conftest.py was edited; files matching tests/conftest.py "
        "(protected) must stay as they were at the session's start: restore it",
        "tests/conftest.py:1: pytest no longer collects 1 test file(s) it collected at the "
        "start (tests/test_app.py): keep them in the run" + _allow("pytest", "tests/conftest.py"),
    ]


def test_a_resumed_session_keeps_its_baseline_and_a_new_one_retakes_it(ralph: Ralph) -> None:
    _project(ralph)
    _start_session(ralph, "s1")
    (ralph.path / "tests/test_other.py").unlink()
    _start_session(ralph, "s1")
    assert len(_failures(ralph)) == 3
    session = _start_session(ralph, "s2")
    assert _failures(ralph) == []
    assert session.plugin_state["integrity"]["tests"] == 3


def test_the_baseline_records_the_collected_test_counts(ralph: Ralph) -> None:
    _project(ralph)
    tests = CheckResult("tests", "tests", Status.PASSED, "4 passed",
                        counts={"passed": 4, "failed": 0})
    _start_session(ralph, baseline=Verification(root=ralph.path, results=[tests]))
    data = json.loads((ralph.path / ".ralph/integrity-baseline.json").read_text())
    assert data["test_counts"] == {"passed": 4, "failed": 0}
    assert data["tests"]["tests/test_app.py"] == {"test_add": 4, "test_add_zero": 8,
                                                 "TestMore.test_negative": 13}


def test_an_unreadable_baseline_is_an_error(ralph: Ralph) -> None:
    _project(ralph)
    ralph.makefile(".ralph/integrity-baseline.json", "{not json")
    result = ralph.run("check", "--until", "integrity")
    assert result.ret == 3
    result.stdout.fnmatch_lines(["ERROR*integrity*unreadable*start a new session*"])


def test_markers_in_strings_do_not_count() -> None:
    found = sources.markers('"""Use # noqa or pytest.mark.skip here."""\n'
                            "x = 'pytest.skip('  # type: ignore[misc]\n"
                            "@unittest.skipIf(True, 'no')\n"
                            "def f(): pass  # NOQA:E501,F401 because\n"
                            "# pragma: no cover\n")
    assert [(m.kind, m.text, m.line) for m in found] == [
        ("type: ignore", "# type: ignore[misc]", 2),
        ("skip", "unittest.skipIf", 3),
        ("noqa", "# NOQA:E501,F401", 4),
        ("no cover", "pragma: no cover", 5),
    ]


def test_settings_from_ini_files_and_ruff_toml(ralph: Ralph) -> None:
    ralph.makefile("setup.cfg", """
        [coverage:report]
        fail_under = 80
        omit =
            src/legacy.py
            src/gen/*

        [mypy-app.vendored.*]
        ignore_errors = True

        [tool:pytest]
        testpaths = tests
    """)
    ralph.makefile(".coveragerc", "[run]\nbranch = true\n")
    ralph.makefile("mypy.ini", "[mypy]\nwarn_unused_ignores = True\n")
    ralph.makefile("ruff.toml", "[lint.per-file-ignores]\n\"tests/*\" = [\"S101\"]\n")
    found = {(s.file, s.key): s.value
             for s in read_all(ralph.path, ["setup.cfg", ".coveragerc", "mypy.ini", "ruff.toml"])}
    assert found == {
        ("setup.cfg", "coverage.report.fail_under"): 80.0,
        ("setup.cfg", "coverage.report.omit"): ["src/legacy.py", "src/gen/*"],
        ("setup.cfg", "mypy.overrides[app.vendored.*].ignore_errors"): True,
        ("setup.cfg", "pytest.testpaths"): ["tests"],
        (".coveragerc", "coverage.run.branch"): True,
        ("mypy.ini", "mypy.warn_unused_ignores"): True,
        ("ruff.toml", "ruff.lint.per-file-ignores"): ["tests/*: S101"],
    }


def test_loop_specs_add_integrity_unless_switched_off(ralph: Ralph) -> None:
    from ralph_verify.config.until import parse_until

    config = get_config(["check", "--root", str(ralph.path)])
    specs = parse_until("tests")
    assert [s.text for s in integrity.loop_specs(config, specs)] == ["tests", "integrity"]
    assert integrity.loop_specs(config, parse_until("integrity,tests")) == \
        parse_until("integrity,tests")
    ralph.makepyproject("[tool.ralph-verify]\nintegrity = false\n")
    config = get_config(["check", "--root", str(ralph.path)])
    assert integrity.loop_specs(config, specs) == specs


@pytest.mark.parametrize(("then", "now", "expected"), [
    ({"passed": 5, "failed": 1, "skipped": 0}, {"passed": 4, "failed": 0, "skipped": 0},
     []),  # fewer: the frozen oracle's, or the source comparison's to name
    ({"passed": 5, "skipped": 1}, {"passed": 4, "skipped": 2},
     ["pytest skipped more tests than at the session's start: 2 now, 1 then; make them pass "
      "instead of skipping them"]),
    ({"passed": 5}, {"passed": 9, "failed": 1}, []),
    # The tests check counts xfails apart; the run compared counts them as skipped.
    ({"passed": 468, "skipped": 0, "xfailed": 2, "xpassed": 1}, {"passed": 469, "skipped": 2},
     []),
    ({"passed": 5, "skipped": 0, "xfailed": 2}, {"passed": 5, "skipped": 3},
     ["pytest skipped more tests than at the session's start: 3 now, 2 then; make them pass "
      "instead of skipping them"]),
    ({}, {"passed": 0}, []),
    ({"passed": 5}, None, []),
])
def test_collected_counts_against_the_baseline_run(then: dict[str, int],
                                                   now: dict[str, int] | None,
                                                   expected: list[str]) -> None:
    assert [f.message for f in integrity.compare_collected(then, now)] == expected


class InSession:
    """A loop session in the run, as ``ralph-verify run`` and hook mode set it."""

    def __init__(self, ralph: Ralph, session_id: str, baseline: Verification | None) -> None:
        self.ralph, self.session_id, self.baseline = ralph, session_id, baseline

    @hookimpl
    def ralph_configure(self, config: Config) -> None:
        config.stash[SESSION_KEY] = Session(
            id=self.session_id, root=self.ralph.path, dir=self.ralph.path / ".ralph",
            config=config, settings=SessionSettings((), "t", 3), baseline=self.baseline)


@pytest.mark.parametrize(("session_id", "has_baseline", "summary"), [
    ("s2", False, "the baseline is taken when the session starts; later verifications compare "
                  "against it"),
    ("s2", True, ".ralph/integrity-baseline.json belongs to session s1, not to this session "
                 "s2: a baseline is taken when a session starts"),
    ("s1", True, "3 weakened since session s1 started: 1 deleted file, 1 fewer tests, "
                 "1 removed test"),
])
def test_in_a_loop_only_the_sessions_own_baseline_counts(
        ralph: Ralph, session_id: str, has_baseline: bool, summary: str) -> None:
    _project(ralph)
    _start_session(ralph, "s1")
    (ralph.path / "tests/test_other.py").unlink()
    baseline = Verification(root=ralph.path, results=[]) if has_baseline else None
    result = ralph.run("check", "--until", "integrity", "--json",
                       plugins=[InSession(ralph, session_id, baseline)])
    assert result.json()["checks"][0]["summary"] == summary
