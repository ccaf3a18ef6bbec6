"""``junit:GLOB`` and the streaming JUnit XML reader, on recorded files of real tools."""

from __future__ import annotations

import shutil
import tracemalloc
from pathlib import Path

import pytest

from ralph_verify.junit.read import JUnitError, JUnitReport, iter_cases, read_report
from ralph_verify.testing import Ralph

DATA = Path(__file__).parent.parent / "data" / "junit"


def counts(report: JUnitReport) -> tuple[int, int, int, int]:
    return report.passed, report.failed, report.errors, report.skipped


def test_pytest_xunit1_gives_node_ids_messages_and_codes() -> None:
    report = read_report(DATA / "pytest-xunit1.xml")
    assert counts(report) == (2, 3, 1, 2)
    by_id = {case.id: case for case in report.problems}
    assert list(by_id) == [
        "tests/test_a.py::test_fail",
        "tests/test_a.py::TestK::test_val",
        "tests/test_a.py::TestK::test_p[c[d]]",
        "tests/test_a.py::test_fx",
    ]
    fail = by_id["tests/test_a.py::test_fail"]
    assert fail.message.startswith("assert 3 == 4")
    assert fail.code == "AssertionError"
    assert (fail.path, fail.line) == ("tests/test_a.py", 4)
    assert "E   assert 3 == 4" in fail.detail
    assert by_id["tests/test_a.py::TestK::test_val"].code == "ValueError"
    setup_error = by_id["tests/test_a.py::test_fx"]
    assert setup_error.outcome == "error"
    assert setup_error.code == "RuntimeError"
    assert "fixture boom" in setup_error.message


def test_pytest_xunit2_without_file_attribute_still_reads() -> None:
    report = read_report(DATA / "pytest-xunit2.xml")
    assert counts(report) == (2, 3, 1, 2)
    first = report.problems[0]
    assert first.id == "tests.test_a::test_fail"
    # The crash line of the traceback gives the file and line.
    assert (first.path, first.line, first.code) == ("tests/test_a.py", 4, "AssertionError")


def test_pytest_collection_error_is_an_error_on_the_module() -> None:
    [case] = list(iter_cases(DATA / "pytest-collection-error.xml"))
    assert case.collection and case.outcome == "error"
    assert case.id == "tests/test_b.py"
    assert case.message == ("collection error: ModuleNotFoundError: "
                            "No module named 'nonexistent_mod'")
    assert case.code == "ModuleNotFoundError"


def test_jest_junit() -> None:
    report = read_report(DATA / "jest-junit.xml")
    assert counts(report) == (2, 1, 0, 1)
    [case] = report.problems
    assert case.id == "Calculator divides by zero"  # classname == name: not repeated
    assert case.message == "Error: expect(received).toBe(expected) // Object.is equality"
    assert case.code == "Error"
    assert "calc.test.js:12:23" in case.detail


def test_go_junit_report_with_a_build_failure() -> None:
    report = read_report(DATA / "go-junit-report.xml")
    assert counts(report) == (2, 1, 1, 1)
    divide, build = report.problems
    assert divide.id == "example.com/calc::TestDivide"
    # "Failed" says nothing: the first line of the output is used.
    assert divide.message == "calc_test.go:21: Divide(1, 0) = 0, want an error"
    assert build.id == "example.com/broken::[build failed]"
    assert build.message == "broken/broken.go:5:2: undefined: fmt.Printx"


def test_nextest_failures_and_flaky_retries() -> None:
    report = read_report(DATA / "nextest.xml")
    assert counts(report) == (2, 1, 0, 1)
    [case] = report.problems
    assert case.id == "calc::tests::divides_by_zero"
    assert case.code == "test failure"
    assert case.message == ("thread 'tests::divides_by_zero' panicked at src/lib.rs:21:9: "
                            "assertion `left == right` failed")
    # Passed after nextest's own retry: passing, and reported as flaky.
    assert report.flaky == ["calc::tests::network_sometimes"]


@pytest.mark.parametrize(("name", "expected"), [
    ("pytest-truncated.xml", "pytest-truncated.xml: truncated XML (no element found: line 15"),
    ("malformed.xml", "malformed.xml: malformed XML (mismatched tag: line 5, column 4)"),
    ("empty.xml", "empty.xml: the file is empty"),
    ("not-junit.html.xml", "not JUnit XML (the root element is <html>"),
])
def test_unreadable_files_raise_a_clear_error(name: str, expected: str) -> None:
    with pytest.raises(JUnitError) as excinfo:
        read_report(DATA / name)
    assert expected in str(excinfo.value)


def test_a_file_without_test_cases_counts_nothing() -> None:
    assert read_report(DATA / "no-testcases.xml").total == 0


def _write_big(path: Path, cases: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        handle.write('<testsuites><testsuite name="big">')
        for index in range(cases):
            if index % 10:
                handle.write(f'<testcase classname="t.test_big" name="test_{index}" '
                             'file="t/test_big.py" line="1"/>')
            else:
                handle.write(f'<testcase classname="t.test_big" name="test_{index}">'
                             f'<failure message="assert {index} == 0">{"x" * 400}</failure>'
                             '</testcase>')
        handle.write("</testsuite></testsuites>")


def _peak_bytes(path: Path) -> tuple[int, JUnitReport]:
    tracemalloc.start()
    try:
        report = read_report(path, max_problems=50)
        return tracemalloc.get_traced_memory()[1], report
    finally:
        tracemalloc.stop()


def test_memory_stays_flat_as_the_file_grows(tmp_path: Path) -> None:
    small, big = tmp_path / "small.xml", tmp_path / "big.xml"
    _write_big(small, 1_000)
    _write_big(big, 15_000)
    small_peak, _ = _peak_bytes(small)
    big_peak, report = _peak_bytes(big)
    assert (report.passed, report.failed, len(report.problems)) == (13_500, 1_500, 50)
    # 15 times the tests, the same memory: cases are dropped once read.
    assert big_peak < small_peak * 1.5 + 200_000, (small_peak, big_peak)


# --- the check, through the front door ------------------------------------------------


def _reports(ralph: Ralph, *names: str) -> None:
    (ralph.path / "reports").mkdir()
    for name in names:
        shutil.copy(DATA / name, ralph.path / "reports" / name)


def test_junit_check_reads_every_matching_file(ralph: Ralph) -> None:
    _reports(ralph, "jest-junit.xml", "go-junit-report.xml")
    result = ralph.run("check", "--until", "junit:reports/*.xml", "--json")
    assert result.ret == 1, result
    [check] = result.json()["checks"]
    assert check["status"] == "failed"
    assert check["summary"] == "2 failed, 4 passed, 2 skipped, 1 error in 2 files"
    assert check["metric"] == 4
    locations = [f["location"] for f in check["failures"]]
    assert locations == ["example.com/calc::TestDivide", "example.com/broken::[build failed]",
                         "Calculator divides by zero"]
    assert "Divide(1, 0) = 0, want an error" in result.err  # the feedback quotes it


def test_junit_check_threshold_is_the_passing_count(ralph: Ralph) -> None:
    (ralph.path / "passing.xml").write_text(
        '<testsuite name="s"><testcase classname="a" name="one"/>'
        '<testcase classname="a" name="two"/></testsuite>', encoding="utf-8")
    ok = ralph.run("check", "--until", "junit:passing.xml>=2")
    assert ok.ret == 0, ok
    ok.stdout.fnmatch_lines(["PASSED*junit:passing.xml>=2*2 passed in passing.xml*"])
    short = ralph.run("check", "--until", "junit:passing.xml>=3")
    assert short.ret == 1
    short.stdout.fnmatch_lines(["FAILED*2 passed in passing.xml; wanted >=3 passing*"])


def test_junit_check_without_a_matching_file_fails_clearly(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "junit:build/test-results/*.xml")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "FAILED*no file matches build/test-results/*.xml*",
        "*did the tool that writes the JUnit XML run*",
    ])


@pytest.mark.parametrize("name", ["pytest-truncated.xml", "empty.xml", "malformed.xml"])
def test_junit_check_on_a_broken_file_is_an_error_not_a_traceback(ralph: Ralph,
                                                                   name: str) -> None:
    _reports(ralph, name)
    result = ralph.run("check", "--until", f"junit:reports/{name}")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines([f"ERROR*unreadable JUnit XML: *{name}: *"])
    assert "Traceback" not in result.out + result.err


def test_junit_check_with_no_test_case_fails(ralph: Ralph) -> None:
    _reports(ralph, "no-testcases.xml")
    result = ralph.run("check", "--until", "junit:reports/no-testcases.xml")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAILED*no test case in reports/no-testcases.xml*"])


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE testsuite [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<testsuite name="lolz"><testcase classname="t" name="test_&lol9;"/></testsuite>
"""

XXE = """<?xml version="1.0"?>
<!DOCTYPE testsuite [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<testsuite name="xxe"><testcase classname="t" name="ok">
<system-out>&secret;</system-out></testcase></testsuite>
"""

XXE_URL = """<?xml version="1.0"?>
<!DOCTYPE testsuite SYSTEM "http://127.0.0.1:9/evil.dtd">
<testsuite name="xxe"><testcase classname="t" name="ok"/></testsuite>
"""


@pytest.mark.parametrize("content", [BILLION_LAUGHS, XXE, XXE_URL],
                         ids=["billion-laughs", "xxe-file", "xxe-url"])
def test_a_junit_file_with_a_dtd_is_refused_unread(ralph: Ralph, content: str) -> None:
    ralph.makefile("reports/evil.xml", content)
    result = ralph.run("check", "--until", "junit:reports/evil.xml", "--json")
    assert result.ret == 3, result
    [check] = result.json()["checks"]
    assert check["status"] == "error"
    assert check["summary"].startswith("unreadable JUnit XML: ")
    assert "reports/evil.xml: refused: the file declares a DTD" in check["summary"]
    assert "root:" not in result.out + result.err  # nothing of /etc/passwd
    assert "lollol" not in result.out + result.err


@pytest.mark.parametrize(("suite", "expected"), [
    ('<testsuite name="s" tests="-3" failures="0">', 'tests="-3"> is negative or absurd'),
    ('<testsuite name="s" failures="99999999999">', "is negative or absurd"),
    ('<testsuite name="s" errors="many">', "is not a number"),
])
def test_absurd_declared_numbers_are_an_error(ralph: Ralph, suite: str, expected: str) -> None:
    ralph.makefile("reports/odd.xml",
                   f'{suite}<testcase classname="t" name="test_ok"/></testsuite>')
    result = ralph.run("check", "--until", "junit:reports/odd.xml")
    assert result.ret == 3, result
    assert expected in result.out, result


def test_only_skipped_cases_or_hidden_failures_never_pass(ralph: Ralph) -> None:
    ralph.makefile("reports/skipped.xml", '<testsuite name="s">'
                   '<testcase classname="t" name="a"><skipped/></testcase>'
                   '<testcase classname="t" name="b"><skipped/></testcase></testsuite>')
    result = ralph.run("check", "--until", "junit:reports/skipped.xml")
    assert result.ret == 1, result
    result.stdout.fnmatch_lines(["FAILED*0 passed, 2 skipped*no test passed*"])
    # A suite that says it had 2 failures but lists none (its cases were cut out).
    ralph.makefile("reports/cut.xml", '<testsuite name="s" failures="2" tests="3">'
                   '<testcase classname="t" name="a"/></testsuite>')
    result = ralph.run("check", "--until", "junit:reports/cut.xml", "--json")
    assert result.ret == 1, result
    [check] = result.json()["checks"]
    [failure] = check["failures"]
    assert failure["code"] == "junit-counts"
    assert "declares 2 failing tests (failures + errors) but lists 0" in failure["message"]
