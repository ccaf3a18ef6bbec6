"""Tests added this session that kill no mutant of the changed code they run.

For ``integrity`` (:func:`idle_new_tests`): a new test that runs the session's changed
product lines and fails under none of their mutants asserts nothing those lines decide. The
same engine as the ``mutation`` check, run with only the new tests and every test of a
mutant run (not only until the first kill), so each test's own kills are known. A new test
that runs none of the changed lines is not judged here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext


def idle_new_tests(ctx: VerifyContext, new_tests: Sequence[str], *,
                   timeout: float = 900.0) -> list[Failure]:
    """A failure (code ``idle-test``) for each of ``new_tests`` (pytest node ids) that
    reaches a mutant of the product lines changed since the session's start (``check``:
    since ``HEAD`` or ``--baseline``) and kills none. Raises
    :class:`~ralph_verify.proc.process.ToolError` when the tests cannot be run."""
    from ralph_verify.plugins.mutation.changes import NoBaseline
    from ralph_verify.plugins.mutation.running import many, prepare, pytest_args, run_mutants

    if not new_tests:
        return []
    try:
        found = prepare(ctx)
    except NoBaseline:
        return []
    if not found.mutants:
        return []
    ids = list(new_tests)
    outcomes = run_mutants(ctx, found.plans, ids=ids, args=pytest_args(ctx, ids),
                           timeout=timeout, every=True)
    kills: dict[str, int] = {}
    for killers in outcomes.killers.values():
        for test in killers:
            kills[test] = kills.get(test, 0) + 1
    failures = []
    for test in ids:
        reached = outcomes.reach.get(test)
        if reached and not kills.get(test):
            files = sorted({found.mutants[i][0] for i in reached if i in found.mutants})
            failures.append(Failure(
                message=f"{test} is new and kills none of the {many(len(reached), 'mutant')} "
                        f"of the changed code it runs ({', '.join(files)}): it asserts nothing "
                        "that code decides", location=test, code="idle-test"))
    return failures
