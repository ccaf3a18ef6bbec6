"""``junit:GLOB``: JUnit XML written by any tool (jest-junit, go-junit-report, cargo-nextest, ...).

The files are read with the same streaming reader as the ``tests`` check
(:mod:`ralph_verify.junit_xml`), and judged the same way: the check fails on
any failing or erroring test case and on no test case at all; a threshold
(``junit:reports/*.xml>=200``) is the minimum number of passing tests.
"""

from __future__ import annotations

from ralph_verify import hookimpl
from ralph_verify.checks import Check, CheckRegistry, CheckResult, CheckType, Failure, Status
from ralph_verify.junit_xml import JUnitError, JUnitReport, read_report
from ralph_verify.verification import VerifyContext

#: Failing tests kept in detail per check; the counts cover all of them.
MAX_FAILURES = 200


def counts_text(report: JUnitReport) -> str:
    """``2 failed, 1 error, 12 passed, 3 skipped (1 flaky)``, pytest's order."""
    parts = []
    if report.failed:
        parts.append(f"{report.failed} failed")
    if report.errors:
        parts.append(f"{report.errors} error{'s' if report.errors != 1 else ''}")
    parts.append(f"{report.passed} passed")
    if report.skipped:
        parts.append(f"{report.skipped} skipped")
    text = ", ".join(parts)
    if report.flaky:
        text += f" ({len(report.flaky)} flaky)"
    return text


def report_result(check: Check, report: JUnitReport, *, no_tests: str, where: str = "",
                  output: str = "") -> CheckResult:
    """Judge a JUnit report: every test must pass, and at least N when ``NAME>=N`` is given.

    The metric is the number of passing tests (flaky ones included), so an
    agent cannot "pass" by deleting tests once a threshold is set.
    """
    counts = {"passed": report.passed, "failed": report.failed, "errors": report.errors,
              "skipped": report.skipped, "flaky": len(report.flaky)}
    common = {"metric": float(report.passed), "counts": counts, "flaky": list(report.flaky)}
    if report.total == 0:
        return check.result(Status.FAILED, no_tests, output=output,
                            failures=[Failure(message=no_tests, code="no-tests")], **common)
    failures = [Failure(message=case.message, location=case.id, detail=case.detail,
                        code=case.code, path=case.path, line=case.line)
                for case in report.problems]
    summary = counts_text(report) + (f" in {where}" if where else "")
    if report.failing > len(report.problems):
        summary += f" (details of the first {len(report.problems)} failing tests kept)"
    threshold_met = check.spec.compare(report.passed)
    if not threshold_met:
        want = check.spec.threshold_text()
        summary += f"; wanted {want} passing"
        failures.append(Failure(
            message=f"{report.passed} tests passed, wanted {want} passing tests "
                    "(were tests deleted, skipped or not collected?)",
            code="tests-threshold"))
    status = Status.PASSED if report.failing == 0 and threshold_met else Status.FAILED
    return check.result(status, summary, failures=failures, output=output, **common)


class JUnitCheck(Check):
    cost = 2

    def run(self, ctx: VerifyContext) -> CheckResult:
        from ralph_verify.plugins.files import matches

        pattern = self.spec.arg or ""
        try:
            found = [p for p in matches(ctx.root, pattern) if (ctx.root / p).is_file()]
        except ValueError:
            return self.error(f"junit:{pattern}: the glob must be relative to the project root")
        if not found:
            message = (f"no file matches {pattern} (relative to {ctx.root}): did the tool that "
                       "writes the JUnit XML run, and does it write there?")
            return self.result(Status.FAILED, f"no file matches {pattern}", metric=0.0,
                               failures=[Failure(message=message, location=pattern,
                                                 code="no-junit-file")])
        report = JUnitReport(max_problems=MAX_FAILURES)
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
