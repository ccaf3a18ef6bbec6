"""``fail-to-pass:BASE``: the evidence of a task with no check of its own: tests added or
changed since BASE that fail on BASE's tree and pass now (SWE-bench's FAIL_TO_PASS). BASE's
run is in a private judging tree; the user's tree is never written."""

from __future__ import annotations

import os
from pathlib import Path

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status, VerifyContext
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.markers import hookimpl
from ralph_verify.tasks.keys import EVIDENCE, EVIDENCE_ASK

NAME = EVIDENCE


class FailToPass(Check):
    """Tests of the task that fail at BASE and pass now; at least one."""

    cost = 5

    def run(self, ctx: VerifyContext) -> CheckResult:
        from ralph_verify.plugins.pytest_run.oracle import is_test_file  # pytest's default
        from ralph_verify.project.git import GitError
        from ralph_verify.project.judging_tree import changed_since, judging_tree

        base = self.spec.arg or ""
        try:
            tests = sorted(p for p in changed_since(ctx.root, base)
                           if is_test_file(p) and (ctx.root / p).is_file())
        except GitError as exc:
            return self.error(f"the tree at the task's start ({base[:10]}) cannot be read: "
                              f"{exc}")
        if not tests:
            return self.result(Status.FAILED, "no test added or changed in this task", failures=[
                Failure(message=EVIDENCE_ASK, location="tests")], metric=0)
        now = self._outcomes(ctx, ctx.root, tests, "now")
        with judging_tree(ctx.root, base, keep_now=set(tests).__contains__) as tree:
            before = self._outcomes(ctx, tree, tests, "before")
        failing = [test for test, passed in now.items() if not passed]
        shown = [test for test, passed in now.items() if passed and not before.get(test)]
        stale = [test for test, passed in now.items() if passed and before.get(test)]
        failures = [Failure(message=f"{test} fails now", location=test) for test in failing]
        if stale:
            failures += [Failure(message=f"{test} passed already on the tree as it was when the "
                                 "task started: it does not show this task's work",
                                 location=test) for test in stale[:10]]
        if failing or not shown:
            summary = (f"{len(failing)} of this task's tests fail now" if failing else
                       f"none of this task's {len(now)} test(s) failed before the change")
            return self.result(Status.FAILED, summary, failures=failures, metric=len(shown))
        return self.result(Status.PASSED, f"{len(shown)} test(s) fail before this task's "
                           f"change and pass after: {', '.join(shown[:5])}", metric=len(shown))

    def _outcomes(self, ctx: VerifyContext, where: Path, tests: list[str],
                  name: str) -> dict[str, bool]:
        """Each test id of ``tests`` run in ``where``: passed or not (a file that does not
        import counts as one failing test)."""
        from ralph_verify.junit.read import JUnitError, iter_cases

        junit = ctx.workdir / f"{NAME}-{name}.xml"
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        ctx.run([ctx.python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o",
                 "junit_family=xunit1", f"--junitxml={junit}", "--", *tests],
                timeout=self.timeout, env=env, cwd=where)
        outcomes: dict[str, bool] = {}
        try:
            for case in iter_cases(junit):
                outcomes[case.id] = case.outcome == "passed" and outcomes.get(case.id, True)
        except (JUnitError, OSError):
            pass
        for test in tests:  # a file that reported nothing (did not import): one failure
            if not any(key == test or key.startswith(f"{test}::") for key in outcomes):
                outcomes[test] = False
        return outcomes


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name=NAME, factory=FailToPass, arg="required", arg_help="the commit the task started at",
        help="tests added or changed since the commit that fail there and pass now (a task "
             "list's evidence for a task with no check of its own)"))
