"""``tests`` (alias ``pytest``) and ``coverage`` (alias ``cov``): one pytest run feeds both.

A third-party check reuses that run with ``shared_pytest_run(ctx)`` (:class:`PytestRun`),
which raises :class:`~ralph_verify.proc.process.ToolError` when there is no usable run::

    run = shared_pytest_run(ctx)
    ctx.run([run.python, "-m", "coverage", "xml", f"--data-file={run.coverage_data}", ...])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status
from ralph_verify.checks.registry import PATH_CHOICE, CheckRegistry, looks_like_test_path
from ralph_verify.markers import hookimpl
from ralph_verify.plugins.junit import report_result
from ralph_verify.plugins.pytest_run.coverage_check import CoverageCheck, least_covered, line_ranges
from ralph_verify.plugins.pytest_run.options import TestsOptions
from ralph_verify.proc.process import ToolError

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext
    from ralph_verify.config.parser import Parser
    from ralph_verify.junit.read import JUnitReport
    from ralph_verify.loop.session import Session
    from ralph_verify.plugins.pytest_run.shared import (
        EXIT_NO_TESTS,
        PytestRun,
        read_pytest_report,
        rerun_args,
        shared_pytest_run,
        tests_args,
        tests_options,
    )

__all__ = ["EXIT_NO_TESTS", "CoverageCheck", "PytestRun", "TestsCheck", "least_covered",
           "line_ranges", "read_pytest_report", "rerun_args", "shared_pytest_run", "tests_args",
           "tests_options"]

#: Re-exported from :mod:`.shared` on first use (PEP 562): a command without pytest needs none.
_SHARED = frozenset({"EXIT_NO_TESTS", "PytestRun", "read_pytest_report", "rerun_args",
                     "shared_pytest_run", "tests_args", "tests_options"})


def __getattr__(name: str) -> Any:
    if name in _SHARED:
        from ralph_verify.plugins.pytest_run import shared

        return getattr(shared, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class TestsCheck(Check):
    """``tests``: every collected test passes (flaky ones excepted), at least N with ``>=N``."""

    __test__ = False
    uses_python = True
    cost = 100  # the slowest check: started first (checks.verification.verify)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.alone = self.hidden  # the held-out tests are in the tree only while they run

    @property
    def hidden(self) -> bool:
        """``tests:hidden=PATH`` or ``tests:hidden`` (marked tests): held-out tests
        (:mod:`.hidden_tests`)."""
        return (self.spec.arg or "").partition("=")[0] == "hidden"

    @property
    def cacheable(self) -> bool:  # type: ignore[override]  # per spec: tests:ARG needs more
        return self.spec.arg is None  # than the tree (a session's baseline, hidden tests)

    def run(self, ctx: VerifyContext) -> CheckResult:
        if self.hidden:
            from ralph_verify.plugins.pytest_run.hidden_tests import run_hidden

            return run_hidden(self, ctx)
        if self.spec.arg is not None and looks_like_test_path(self.spec.arg):
            return _judge_path(self, ctx)  # tests:PATH, from the same run
        if self.spec.arg is not None:
            from ralph_verify.loop.new_failures import judge_new  # tests:new, in a loop

            return judge_new(self, ctx, self.shared_suite)
        return self.shared_suite(ctx)

    def shared_suite(self, ctx: VerifyContext) -> CheckResult:
        """The suite's verdict, judged once per verification (a re-run of flaky tests too)
        however many ``tests`` checks read it, as this check's result."""
        suite = ctx.shared("tests-suite", lambda: self._judged(ctx, self.run_suite(ctx)))
        return replace(suite, name=self.name, spec=self.spec.text,
                       failures=[replace(f) for f in suite.failures], counts=dict(suite.counts))

    def _judged(self, ctx: VerifyContext, result: CheckResult) -> CheckResult:
        """``result`` under the frozen oracle: the judging tree's paths shown as the
        project's, the agent's own pass added, the frozen and released files named."""
        from ralph_verify.plugins.pytest_run.shared import (
            EXIT_NO_TESTS,
            read_pytest_report,
            shared_pytest_run,
        )

        run = shared_pytest_run(ctx)
        if run.oracle is None:
            return result
        from ralph_verify.plugins.pytest_run.oracle import note, unmap

        tree, root = run.cwd or ctx.root, ctx.root
        result.failures = [replace(f, message=unmap(f.message, tree, root),
                                   detail=unmap(f.detail, tree, root)) for f in result.failures]
        result.output = unmap(result.output, tree, root)
        agent = run.agent_run
        if agent is not None and agent.tool_run.returncode != EXIT_NO_TESTS:
            report = read_pytest_report(agent)
            result.counts["agent_tests_passed"] = report.passed
            if report.failing:
                result.status = Status.FAILED
                result.failures += report_result(self, report, no_tests="").failures
                result.summary += f"; your new or changed test modules: {report.failing} failing"
        return note(run.oracle, result)

    def run_suite(self, ctx: VerifyContext) -> CheckResult:
        """The plain ``tests`` verdict of this verification's pytest run."""
        from ralph_verify.plugins.pytest_run.shared import (
            EXIT_INTERRUPTED,
            EXIT_NO_TESTS,
            EXIT_TESTS_FAILED,
            read_pytest_report,
            shared_pytest_run,
        )

        run = shared_pytest_run(ctx)
        from ralph_verify.junit.read import JUnitError  # once pytest has started

        code = run.tool_run.returncode
        if code == EXIT_NO_TESTS:
            where = " ".join(run.args) or "the default test paths"
            message = (f"no tests collected from {where} (pytest exit 5): add tests, or fix "
                       "[tool.ralph-verify.checks.tests] args / pytest's testpaths")
            return self.result(Status.FAILED, "no tests collected", metric=0.0,
                               counts={"passed": 0}, output=run.tool_run.tail(),
                               failures=[Failure(message=message, code="no-tests")])
        try:
            report = read_pytest_report(run)
        except JUnitError as exc:
            return self.error(f"pytest's JUnit XML is unreadable: {exc}",
                              output=run.tool_run.tail())
        if report.failing == 0 and code == EXIT_INTERRUPTED:
            return self.error("pytest was interrupted (exit 2)", output=run.tool_run.tail())
        if report.failing == 0 and code == EXIT_TESTS_FAILED:
            tail = run.tool_run.tail()
            result = report_result(self, report, no_tests="no tests ran", output=tail)
            result.status = Status.FAILED
            result.summary += "; but pytest exited 1"
            result.failures.append(Failure(
                message="pytest exited 1 although no test failed (a plugin, a warning "
                        "filter or a session hook failed)", detail=tail, code="pytest-exit"))
            return result
        flaky_allowed = False
        if report.failing or report.flaky:
            options = self.options if isinstance(self.options, TestsOptions) else TestsOptions()
            if options.rerun and 1 <= report.failing <= options.rerun:
                _mark_flaky(report, self._rerun(ctx, run, report))
            flaky_allowed = options.flaky == "allow" and not run.partial
        result = report_result(self, report, no_tests="no tests ran", flaky_allowed=flaky_allowed)
        return _partial_result(result, run) if run.partial else result

    def _rerun(self, ctx: VerifyContext, run: PytestRun, report: JUnitReport) -> list[str]:
        """Run the failed tests once more (not under coverage); the ids that passed."""
        from ralph_verify.junit.read import JUnitError, iter_cases
        from ralph_verify.plugins.pytest_run.shared import launch, rerun_args
        from ralph_verify.recorder.read import outcomes

        if (len(report.problems) != report.failing or any(c.collection for c in report.problems)
                or any(c.code == "tampering" for c in report.problems)):
            return []
        ids = list(dict.fromkeys(case.id for case in report.problems))
        try:
            again = launch(ctx, "pytest-rerun", args=[*rerun_args(run.args, ctx.root), *ids],
                           coverage=False, cwd=run.cwd)
            ended = outcomes(again.record_dir) if again.record_dir else None
            if ended is None:
                ended = {c.id: c.outcome for c in iter_cases(again.junit_path)}
            passed = {test_id for test_id, how in ended.items() if how == "passed"}
        except (ToolError, JUnitError):
            return []  # the re-run could not tell: the first run's failures stand
        return [test_id for test_id in ids if test_id in passed]


def _mark_flaky(report: JUnitReport, flaky: list[str]) -> None:
    """The tests that passed when re-run count as passed, and as flaky."""
    for case in [c for c in report.problems if c.id in flaky]:
        report.problems.remove(case)
        if case.outcome == "failed":
            report.failed -= 1
        else:
            report.errors -= 1
        report.passed += 1
        report.flaky.append(case.id)


#: Judged on the full suite only: a partial run has fewer tests by design.
_FULL_ONLY = {"tests-threshold", "no-test-passed", "no-tests"}


def _partial_result(result: CheckResult, run: PytestRun) -> CheckResult:
    """A partial run's result: marked partial, and never a pass."""
    result.failures = [f for f in result.failures if f.code not in _FULL_ONLY]
    result.summary = (f"partial run, the {run.selected} affected tests first: "
                      f"{result.summary.split('; wanted')[0]}"
                      f"{f'; {run.note}' if run.note else ''}")
    result.counts["partial"] = 1
    result.counts["selected"] = run.selected
    if result.status is Status.PASSED or not result.failures:
        result.status = Status.FAILED  # cannot happen: a partial run is kept only if one failed
        result.failures.append(Failure(message="a partial run cannot pass: run the full suite",
                                       code="partial"))
    return result


#: The outcomes that count as a pass of one test (a skipped test neither passes nor fails).
_PASSING = frozenset({"passed", "xfailed", "subtests passed"})


def selects(target: str, test_id: str) -> bool:
    """Whether pytest's ``test_id`` is among the tests ``target`` names."""
    target = target.rstrip("/")
    return (test_id == target or test_id.startswith(target + "::")
            or test_id.startswith(target + "/") or test_id.startswith(target + "["))


def _judge_path(check: TestsCheck, ctx: VerifyContext) -> CheckResult:
    """``tests:PATH[::NODE][>=N]``: the tests collected there all pass, and at least N exist;
    judged from the shared run, so many tasks' ``tests:PATH`` checks cost one run."""
    from ralph_verify.plugins.pytest_run.shared import shared_pytest_run
    from ralph_verify.recorder.read import outcomes

    target = str(check.spec.arg)
    suite = check.shared_suite(ctx)
    if suite.status is Status.ERROR:
        return check.error(suite.summary, output=suite.output)
    run = shared_pytest_run(ctx)
    folder = run.record_dir
    ids: Mapping[str, str] = (ctx.shared("pytest-test-ids-any",
                                         lambda: outcomes(folder) or {})
                              if folder is not None else {})
    mine = {test_id: outcome for test_id, outcome in ids.items() if selects(target, test_id)}
    failures = [failure for failure in suite.failures
                if failure.location and selects(target, failure.location)]
    failing = sorted(test_id for test_id, outcome in mine.items() if outcome not in _PASSING
                     and outcome != "skipped")
    for test_id in failing:
        if not any(f.location == test_id for f in failures):
            failures.append(Failure(message=f"{test_id} {mine[test_id]}", location=test_id,
                                    code="test-failed"))
    passed = sum(1 for outcome in mine.values() if outcome in _PASSING)
    wanted = int(check.spec.threshold) if check.spec.threshold is not None else 1
    counts = {"passed": passed, "failed": len(failing), "collected": len(mine)}
    if run.partial and not failures:
        return check.result(Status.FAILED, f"{target}: not judged on a partial run",
                            counts=counts, failures=[Failure(
                                message=f"the affected tests ran first and another test "
                                        f"failed; {target} is judged on the full suite",
                                code="partial")])
    if failures:
        return check.result(Status.FAILED, f"{target}: {len(failures)} failing of {len(mine)}",
                            metric=float(passed), counts=counts, failures=failures,
                            output=suite.output)
    if passed < wanted:
        found = "no test was collected" if not mine else f"only {passed} passed"
        return check.result(Status.FAILED, f"{target}: {found}, wanted at least {wanted}",
                            metric=float(passed), counts=counts, failures=[Failure(
                                message=f"{found} from {target}; write the tests there (at "
                                        f"least {wanted}) and make them pass",
                                location=target, code="no-tests")])
    return check.result(Status.PASSED, f"{target}: {passed} passed", metric=float(passed),
                        counts=counts)


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="tests", aliases=("pytest",), factory=TestsCheck, options=TestsOptions,
        threshold="minimum number of passing tests (tests.min=120)", arg="optional",
        arg_choices=("new", "hidden", "hidden=", PATH_CHOICE), loop_args=("new",),
        arg_help="PATH[::NODE]: the tests collected from that file, folder or node all pass "
                 "and at least one (>=N: N) exists, judged from the same run; "
                 "new: in a loop, only failures that were not there at the baseline count "
                 "(tests:new); hidden=PATH: held-out tests kept outside the project, copied "
                 "in only while they run, reported by id and message, never by source; "
                 "hidden: the tests marked @pytest.mark.hidden, left out of the tests run "
                 "and reported the same way",
        help="the pytest suite passes (run once with ralph-verify's own pytest plugin, which "
             "records pytest's node ids, counts and raw outcomes; a few failed tests are re-run "
             "once to tell flaky from failing, and flaky still fails unless flaky = \"allow\")",
    ))
    registry.add(CheckType(
        name="coverage", aliases=("cov",), factory=CoverageCheck,
        plugin="pytest_run",  # its class lives in coverage_check.py; this plugin registers it
        threshold="total coverage in percent, as 'coverage report' prints it (coverage.min=80)",
        threshold_max=100,
        help="coverage of the same pytest run, read with 'coverage json' and the project's "
             "coverage config (without a threshold: the project's fail_under)",
    ))


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--allow-test-edits", scope=("loop", "start"), setting="allow-test-edits",
                     action="store_true", default=False,
                     help="count the agent's edits to the session start's tests and test "
                          "settings (a test migration); by default they are frozen: pytest "
                          "judges with them as they were when the session started")


@hookimpl
def ralph_session_prepare(session: Session) -> None:
    """Remove held-out tests a killed verification left in the tree, before any agent runs."""
    from ralph_verify.plugins.pytest_run.hidden_tests import remove_copy

    remove_copy(session.root)

