"""``mutation``: the tests kill the mutants of the product lines the session changed.

Passing tests prove little when they assert little: each surviving mutant is named in the
feedback (``pricing.py:14``: replacing ``0.5`` by ``1.5`` breaks no test). A mutant runs only
against the tests that reach it; nothing to mutate is ``skipped``, never ``passed``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext
    from ralph_verify.checks.registry import CheckRegistry
    from ralph_verify.plugins.mutation.engine import Mutant

NAME = "mutation"


class MutationCheck(Check):
    cost = 50
    uses_python = True
    #: Run after the other checks: the suite's own run has then mapped today's tree (the
    #: affected-tests map), and the mutants do not share the cores with it.
    alone = True

    def run(self, ctx: VerifyContext) -> CheckResult:
        from ralph_verify.plugins.mutation.changes import NoBaseline
        from ralph_verify.plugins.mutation.running import (
            Outcomes,
            many,
            prepare,
            pytest_args,
            run_mutants,
        )
        from ralph_verify.proc.process import ToolError

        session = ctx.config.stash.get(SESSION_KEY)
        if session is not None and session.baseline is None:
            return self.result(Status.SKIPPED, "not judged: this is the session's start; later "
                               "verifications mutate what changed since", counts={"mutants": 0})
        try:
            found = prepare(ctx)
        except NoBaseline as exc:
            return self.error(str(exc))
        mutants, skipped, outside = found.mutants, found.skipped, found.outside
        if not mutants:
            why = (f"no product line changed since {found.since}" if not found.lines else
                   f"the {found.changed} since {found.since} hold nothing to mutate")
            return self.result(Status.SKIPPED, f"not judged: {why}{_notes(skipped, outside)}",
                               counts={"mutants": 0})
        from ralph_verify.recorder.affected import tests_reaching

        # The tests that may reach the mutated lines (None: the whole suite).
        ids = (tests_reaching(ctx.root, session.dir, {rel: found.lines[rel] for rel, _ in
                                                      mutants.values()})
               if session is not None else None)
        how = "the affected-tests map" if ids is not None else "one run of the whole suite"
        try:  # no test reaches the lines: nothing to run, every mutant unreached
            outcomes = run_mutants(ctx, found.plans, ids=ids, args=pytest_args(ctx, ids),
                                   timeout=self.timeout) if ids != [] else Outcomes()
        except ToolError as exc:
            return self.error(f"the mutants could not be run: {exc}", output=exc.output)
        killed, invalid = set(outcomes.killed), outcomes.invalid
        judged = [i for i in sorted(mutants) if i not in invalid]
        score = 100.0 * len(killed) / len(judged) if judged else 0.0
        failures = [_failure(*mutants[i], reached=i in outcomes.reached)
                    for i in judged if i not in killed]
        if outcomes.ended:
            skipped.append(f"{len(outcomes.ended)} counted killed because their tests hung or "
                           "the test process died")
        if outcomes.failing:
            skipped.append(f"{len(outcomes.failing)} tests that fail with no mutant left out")
        if invalid:
            skipped.append(f"{len(invalid)} mutants that do not compile left out")
        passed = self.spec.meets(score, not failures)
        wanted = self.spec.relation(passed)
        tests = outcomes.tests
        summary = (f"{len(killed)}/{len(judged)} mutants killed ({score:.0f}%{wanted}) on the "
                   f"{found.changed} since {found.since}; {many(tests, 'test')} from {how}"
                   f"{_notes(skipped, outside)}")
        counts = {"mutants": len(judged), "killed": len(killed), "tests": tests,
                  "survived": sum(f.code == "survived" for f in failures),
                  "unreached": sum(f.code == "unreached" for f in failures),
                  "timeouts": len(outcomes.ended)}
        return self.result(Status.PASSED if passed else Status.FAILED, summary, metric=score,
                           counts=counts, failures=failures)


def _notes(skipped: list[str], outside: int) -> str:
    from ralph_verify.plugins.mutation.running import many

    if outside:
        skipped = [*skipped, f"{many(outside, 'changed line')} at module or class level not "
                             "mutated (they run at import)"]
    return f"; skipped: {'; '.join(skipped)}" if skipped else ""


def _failure(rel: str, mutant: Mutant, *, reached: bool) -> Failure:
    where = f"{rel}:{mutant.line}"
    tail = " breaks no test" if reached else ": no passing test runs this line"
    return Failure(message=f"`{where}`: {mutant.describe()}{tail}", location=where, path=rel,
                   line=mutant.line, code="survived" if reached else "unreached")


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name=NAME, factory=MutationCheck,
        threshold="the share of mutants killed, in percent (mutation.min=80); without one, "
                  "every mutant must be killed",
        threshold_max=100,
        help="the tests kill the mutants of the product lines changed since the session "
             "started (check: since HEAD or --baseline REF): each operator, comparison, "
             "constant, and/or, not, return value and call statement of those lines is "
             "changed in turn and run against the tests that reach it; survivors are named",
    ))
