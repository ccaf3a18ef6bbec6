"""``tests:PATH[::NODE][>=N]``: the tests collected from a file, folder or node all pass, and
at least one (N) exists.

Judged from the verification's one shared pytest run (``ctx.shared``), so a gate of many
tasks' ``tests:PATH`` checks costs one run; the feedback names that task's tests only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ralph_verify.checks.api import CheckResult, Failure, Status

if TYPE_CHECKING:
    from ralph_verify.checks.api import Check, VerifyContext

#: The outcomes that count as a pass of one test (a skipped test neither passes nor fails).
_PASSING = frozenset({"passed", "xfailed", "subtests passed"})


def selects(target: str, test_id: str) -> bool:
    """Whether pytest's ``test_id`` is among the tests ``target`` names."""
    target = target.rstrip("/")
    return (test_id == target or test_id.startswith(target + "::")
            or test_id.startswith(target + "/") or test_id.startswith(target + "["))


def judge_path(check: Check, ctx: VerifyContext,
               run_suite: Callable[[VerifyContext], CheckResult]) -> CheckResult:
    """The verdict of ``tests:PATH`` from the shared run's results."""
    from ralph_verify.plugins.pytest_run.shared import shared_pytest_run
    from ralph_verify.recorder.read import test_ids

    target = str(check.spec.arg)
    suite = run_suite(ctx)
    if suite.status is Status.ERROR:
        return check.error(suite.summary, output=suite.output)
    run = shared_pytest_run(ctx)
    folder = run.record_dir
    ids: Mapping[str, str] = (ctx.shared("pytest-test-ids-any",
                                         lambda: test_ids(folder) or {})
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
