"""``junit:GLOB``: JUnit XML written by any tool (jest-junit, go-junit-report, cargo-nextest, ...).
Read and judged as the ``tests`` check's results are (:func:`report_result`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.markers import hookimpl
from ralph_verify.plugins.files import matches

if TYPE_CHECKING:  # the JUnit reader is imported when a report is read, not at start-up
    from ralph_verify.checks.api import VerifyContext
    from ralph_verify.junit.read import JUnitReport, TestCaseResult

#: Failing tests kept with their traceback excerpt; every failing test is still counted
#: and kept with its message, id and root cause (up to the results' own bound).
MAX_FAILURES = 200
#: Failing tests kept without an excerpt.
MAX_KEPT = 5000


def counts_text(report: JUnitReport) -> str:
    """``2 failed, 12 passed, 3 skipped, 1 xfailed, 1 error (1 flaky)``, pytest's order."""
    errors = f"error{'s' if report.errors != 1 else ''}"
    parts = [f"{number} {noun}" for number, noun in (
        (report.failed, "failed"), (report.skipped, "skipped"), (report.deselected, "deselected"),
        (report.xfailed, "xfailed"), (report.xpassed, "xpassed"), (report.errors, errors),
        (report.subtests_passed, "subtests passed")) if number]
    parts.insert(1 if report.failed else 0, f"{report.passed} passed")
    flaky = f" ({len(report.flaky)} flaky)" if report.flaky else ""
    return ", ".join(parts) + flaky


def report_result(check: Check, report: JUnitReport, *, no_tests: str, where: str = "",
                  output: str = "", flaky_allowed: bool = True) -> CheckResult:
    """Every test must pass, and at least N with ``NAME>=N``; the metric is the number of
    passing tests, so deleting tests cannot pass once a threshold is set."""
    counts = {"passed": report.passed, "failed": report.failed, "errors": report.errors,
              "skipped": report.skipped, "flaky": len(report.flaky)}
    for name in ("xfailed", "xpassed", "deselected", "subtests_passed"):
        if getattr(report, name):
            counts[name] = getattr(report, name)
    common = {"metric": float(report.passed), "counts": counts, "flaky": list(report.flaky)}
    if report.total == 0:
        return check.result(Status.FAILED, no_tests, output=output,
                            failures=[Failure(message=no_tests, code="no-tests")], **common)
    seen: set[str] = set()
    failures = [_failure(check.name, case, index, seen)
                for index, case in enumerate(report.problems)]
    summary = counts_text(report) + (f" in {where}" if where else "")
    if report.note:
        summary += f" ({report.note})"
    status_ok = report.failing == 0
    if report.passed == 0 and report.failing == 0:
        summary += "; no test passed"
        failures.append(Failure(message=f"no test passed: {counts_text(report)} (a suite "
                                "that only skips proves nothing)", code="no-test-passed"))
        status_ok = False
    if report.flaky and not flaky_allowed:
        status_ok = False
        for test_id in report.flaky:
            failures.append(Failure(
                message="flaky: failed in this verification, then passed on a re-run; a test "
                        "that fails even once is not done (make it deterministic; or set "
                        'flaky = "allow" in [tool.ralph-verify.checks.tests])',
                location=test_id, code="flaky"))
    threshold_met = check.spec.compare(report.passed)
    if not threshold_met:
        want = check.spec.threshold_text()
        summary += f"; wanted {want} passing"
        failures.append(Failure(
            message=f"{report.passed} tests passed, wanted {want} passing tests "
                    "(were tests deleted, skipped or not collected?)",
            code="tests-threshold"))
    status = Status.PASSED if status_ok and threshold_met else Status.FAILED
    return check.result(status, summary, failures=failures, output=output,
                        unkept=max(0, report.failing - len(report.problems)), **common)


def _failure(check: str, case: TestCaseResult, index: int, seen: set[str]) -> Failure:
    """Excerpts for the first :data:`MAX_FAILURES` and the first of each root cause; tests
    with a known root cause fold by it (and their exception type), not by their message."""
    from ralph_verify.checks.fingerprint import fingerprint as fingerprint_of
    from ralph_verify.checks.fingerprint import root_cause_fingerprint

    fingerprint = (root_cause_fingerprint(check, case.cause, case.code) if case.cause
                   else fingerprint_of(check, case.message, case.code))
    first = fingerprint not in seen
    seen.add(fingerprint)
    return Failure(message=case.message, location=case.id,
                   detail=case.detail if index < MAX_FAILURES or first else "", code=case.code,
                   path=case.path, line=case.line, fingerprint=fingerprint)


class JUnitCheck(Check):
    cost = 2

    def run(self, ctx: VerifyContext) -> CheckResult:
        from ralph_verify.junit.read import JUnitError, JUnitReport, read_report
        pattern = self.spec.arg or ""
        try:
            found = [p for p in matches(ctx.root, pattern) if (ctx.root / p).is_file()]
        except ValueError:
            return self.error(f"junit:{pattern}: the glob must be relative to the project root")
        if not found:
            message = ("no file matches: did the tool that writes the JUnit XML run, and does "
                       "it write there (relative to the project root)?")
            return self.result(Status.FAILED, f"no file matches {pattern}", metric=0.0,
                               failures=[Failure(message=message, location=pattern,
                                                 code="no-junit-file")])
        report = JUnitReport(max_problems=MAX_KEPT)
        for path in found:
            try:
                read_report(ctx.root / path, report=report)
            except JUnitError as exc:
                return self.error(f"unreadable JUnit XML: {exc}")
        where = found[0] if len(found) == 1 else f"{len(found)} files"
        return report_result(self, report, where=where,
                             no_tests=f"no test case in {where} (matching {pattern})")


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="junit", factory=JUnitCheck, arg="required",
        arg_help="a JUnit XML file or glob relative to the root, ** allowed",
        threshold="minimum number of passing tests across the matching files",
        help="JUnit XML written by any test tool (jest-junit, go-junit-report, cargo-nextest, "
             "pytest --junitxml) shows no failing test",
    ))
