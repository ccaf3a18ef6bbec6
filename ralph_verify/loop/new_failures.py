"""``tests:new``: in a loop, only failures that were not there at the baseline count (a test
known by its id, else its fingerprint); outside a loop the check errors, saying so."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from ralph_verify.checks.api import CheckResult, Failure, Status
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.loop.verdict import Verdict, VerdictProposal

if TYPE_CHECKING:
    from ralph_verify.checks.api import Check, VerifyContext
    from ralph_verify.checks.verification import Verification
    from ralph_verify.loop.session import Session

ARG = "new"
#: Failures that are never pre-existing: the minimum number of passing tests always counts.
_ALWAYS_NEW = frozenset({"tests-threshold"})


def _key(failure: Failure) -> str:
    return f"id:{failure.location}" if failure.location else f"fp:{failure.fingerprint}"


def baseline_failures(session: Session, check_name: str) -> set[str] | None:
    """Keys of the failures of ``check_name`` at the baseline; ``None`` before there is one."""
    if session.baseline is None:
        return None
    return {_key(f) for r in session.baseline.results if r.name == check_name
            for f in r.failures}


def nothing_to_do(baseline: Verification, *, advise: bool = True) -> VerdictProposal | None:
    """A baseline that passes only because every failure was pre-existing is not ``complete``.

    ``tests:new`` at the baseline records the failing tests and passes: ending that session
    ``complete`` would claim work that nobody did, so it ends ``nothing-to-do``, saying why.
    """
    if not baseline.passed:
        return None
    allowed = [(r, sum(f.pre_existing for f in r.failures)) for r in baseline.results]
    allowed = [(r, n) for r, n in allowed if n]
    if not allowed:
        return None
    parts = ", ".join(f"{r.spec} ({n} failing, all there before the session)"
                      for r, n in allowed)
    plain = ",".join(r.spec.split(":", 1)[0] for r, _ in allowed)
    return VerdictProposal(
        Verdict.NOTHING_TO_DO,
        f"nothing for the agent to do: {parts} passes only because no failure is new"
        + (f"; to have the agent fix them, use --until '{plain}' instead" if advise else ""),
        source="core")


def judge_new(check: Check, ctx: VerifyContext,
              run_suite: Callable[[VerifyContext], CheckResult]) -> CheckResult:
    """The ``tests:new`` verdict: ``run_suite`` gives the plain ``tests`` result, judged here
    against the session's baseline (the suite does not run when there is no session)."""
    if check.spec.arg != ARG:
        return check.error(f"{check.name}:{check.spec.arg}: unknown argument; the only one is "
                           f"'{check.name}:{ARG}' (no new failures against the loop's baseline)")
    session = ctx.config.stash.get(SESSION_KEY)
    if session is None:
        return check.error(
            f"{check.spec.text} compares against the baseline of a loop session, and there is "
            f"none here: use it in 'ralph-verify run' (outside a loop, use '{check.name}')")
    result = run_suite(ctx)
    if result.status in (Status.ERROR, Status.SKIPPED):
        return result
    known = baseline_failures(session, result.name)
    failures = []
    new = 0
    for failure in result.failures:
        old = (known is None or _key(failure) in known) and failure.code not in _ALWAYS_NEW
        failures.append(replace(failure, pre_existing=True) if old else failure)
        new += not old
    pre = len(failures) - new
    allowed = f"{pre} pre-existing allowed" if pre else "none pre-existing"
    if known is None:
        summary = (f"baseline: {result.summary}; {pre} failing recorded as pre-existing, "
                   "later only new failures count")
    elif new:
        summary = f"{new} new failing ({allowed}): {result.summary}"
    else:
        summary = f"no new failures ({allowed}): {result.summary}"
    result.failures = failures
    result.status = Status.FAILED if new else Status.PASSED
    result.summary = summary
    return result
