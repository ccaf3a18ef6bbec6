"""``--junitxml``: read back with junitparser, round-tripped, safe for any tool output."""

from __future__ import annotations

from pathlib import Path

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

from ralph_verify.testing import Ralph


def _suites(path: Path) -> list[TestSuite]:
    xml = JUnitXml.fromfile(str(path))
    return list(xml)


def _cases(suite: TestSuite) -> dict[str, TestCase]:
    return {case.name: case for case in suite}


def test_one_testcase_per_check_failures_carry_their_failures(ralph: Ralph) -> None:
    ralph.makefile("src/app.py", "")
    result = ralph.run("check", "--until", "files:src/app.py,files:missing.txt,promise",
                       "--junitxml", "reports/ralph.xml")
    assert result.ret == 1
    xml = JUnitXml.fromfile(str(ralph.path / "reports" / "ralph.xml"))
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == (3, 1, 0, 1)
    (suite,) = list(xml)
    assert suite.name == "ralph-verify check"
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (3, 1, 0, 1)
    cases = _cases(suite)
    assert set(cases) == {"files:src/app.py", "files:missing.txt", "promise"}
    assert cases["files:src/app.py"].is_passed
    assert cases["files:src/app.py"].classname == "ralph-verify.files"
    (failure,) = cases["files:missing.txt"].result
    assert isinstance(failure, Failure)
    assert failure.message == "0 files match missing.txt, wanted >=1"
    # The text is the check's failures as data, not the agent's prose.
    assert failure.text == "missing.txt: expected files matching missing.txt (>=1), found 0"
    (skipped,) = cases["promise"].result
    assert isinstance(skipped, Skipped)
    # junitparser's properties() has no annotations.
    props = {p.name: p.value for p in suite.properties()}  # type: ignore[no-untyped-call]
    assert props["metric:files:missing.txt"] == "0"
    assert props["root"] == str(ralph.path)


def test_round_trips_through_junitparser(ralph: Ralph, tmp_path: Path) -> None:
    result = ralph.run("check", "--until", "files:pyproject.toml,files:nope",
                       "--junitxml", "out.xml")
    assert result.ret == 1
    first = JUnitXml.fromfile(str(ralph.path / "out.xml"))
    first.write(str(tmp_path / "again.xml"))
    second = JUnitXml.fromfile(str(tmp_path / "again.xml"))

    def facts(xml: JUnitXml) -> list[tuple[str, str, str, str | None]]:
        return [(suite.name, case.name, case.classname,
                 type(case.result[0]).__name__ if case.result else None)
                for suite in xml for case in suite]

    assert facts(first) == facts(second) == [
        ("ralph-verify check", "files:pyproject.toml", "ralph-verify.files", None),
        ("ralph-verify check", "files:nope", "ralph-verify.files", "Failure"),
    ]
    assert (second.tests, second.failures) == (2, 1)


def test_an_erroring_check_carries_its_output_even_with_control_characters(
        ralph: Ralph) -> None:
    # ANSI colours and a NUL byte are not allowed in XML 1.0: they must not break the file
    # (they are stripped from every result, as from everything else shown).
    # printf, not a Python start-up: it must finish well within the 0.5 s that "sleep 5" gets,
    # even on a loaded machine.
    ralph.makefile("boom.sh", "printf '\\033[31mboom\\000\\033[0m'; exit 2\n")
    boom = "sh boom.sh"
    result = ralph.run("check", "--until", f'cmd:"{boom}",cmd:"sleep 5"',
                       "--timeout", "0.5", "--junitxml", "out.xml")
    assert result.ret == 3
    cases = _cases(_suites(ralph.path / "out.xml")[0])
    (failure,) = cases[f'cmd:"{boom}"'].result
    assert isinstance(failure, Failure)
    assert failure.text == "sh boom.sh: `sh boom.sh` exited 2: boom\nboom"
    assert "\\x1b" not in failure.text and "\\x00" not in failure.text
    (error,) = cases['cmd:"sleep 5"'].result
    assert isinstance(error, Error)
    assert error.message is not None and "timed out after 0.5s" in error.message


def test_secrets_are_redacted(ralph: Ralph) -> None:
    ralph.env["MY_API_TOKEN"] = "s3cr3t-value-123"
    result = ralph.run("check", "--until", 'cmd:"echo s3cr3t-value-123 && exit 1"',
                       "--junitxml", "out.xml")
    assert result.ret == 1
    text = (ralph.path / "out.xml").read_text(encoding="utf-8")
    assert "s3cr3t-value-123" not in text
    assert "[redacted:MY_API_TOKEN]" in text


def test_no_file_without_the_option(ralph: Ralph) -> None:
    assert ralph.run("check", "--until", "files:pyproject.toml").ret == 0
    assert not list(ralph.path.glob("*.xml"))


def test_a_run_writes_one_suite_per_verification(ralph: Ralph) -> None:
    ralph.makefile("fix.py", "open('done.txt', 'w').close()\n")
    ralph.git_init()
    result = ralph.run("run", "--agent", 'cmd:"python fix.py"', "--until", "files:done.txt",
                       "--junitxml", "junit.xml", "make done.txt")
    assert result.ret == 0, result
    suites = _suites(ralph.path / "junit.xml")
    assert [suite.name for suite in suites] == ["baseline", "iteration 1"]
    baseline = _cases(suites[0])
    assert set(baseline) == {"files:done.txt", "integrity"}
    (failure,) = baseline["files:done.txt"].result
    assert isinstance(failure, Failure)
    assert all(case.is_passed or case.is_skipped for case in _cases(suites[1]).values())


def test_a_run_stopped_at_its_baseline_still_writes_the_file(ralph: Ralph) -> None:
    ralph.git_init()
    result = ralph.run("run", "--agent", 'cmd:"python -c pass"', "--until", 'cmd:"sleep 5"',
                       "--timeout", "0.3", "--junitxml", "junit.xml", "task")
    assert result.ret == 3, result
    (suite,) = _suites(ralph.path / "junit.xml")
    assert suite.name == "baseline"
    (error,) = _cases(suite)['cmd:"sleep 5"'].result
    assert isinstance(error, Error)
