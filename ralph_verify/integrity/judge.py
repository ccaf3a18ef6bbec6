"""One judgement of a tree against the session's baseline: the integrity check's core.

The check (``ralph_verify.plugins.integrity``) and the real-history benchmark
(``benchmarks/bench_integrity_history.py``) both judge through :func:`judge`, so the
benchmark measures exactly what a loop iteration is told.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ralph_verify.checks.api import CheckResult, Failure
from ralph_verify.records.integrity import Gate, Picture


@dataclass
class Judgement:
    """The picture of a tree, what got weaker since the baseline, and what changed honestly
    but is worth a look (listed in the check's summary, never a failure)."""

    picture: Picture
    failures: list[Failure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def judge(root: Path, before: Picture | None,
          ids_now: dict[str, str] | None = None, *,
          keep: Sequence[str] = ("tests/**",)) -> Judgement:
    """Judge ``root`` against ``before`` (the session's start; ``None``: only take the
    picture, with ``keep``), with the test ids pytest reported now when the baseline has
    them."""
    from ralph_verify.integrity.baseline import compare, take

    if before is None:
        return Judgement(take(root, protected=[], keep=keep))
    after = take(root, protected=before.protected_globs, keep=before.keep_globs,
                 allow=before.allow, previous=before)
    judgement = Judgement(after)
    failures = compare(before, after, root, judgement.notes)
    ids_then = before.test_ids
    if ids_then is not None and ids_now is not None:
        from ralph_verify.integrity.renames import judge as judge_tests
        from ralph_verify.integrity.test_ids import vanished_tests

        failures += vanished_tests(ids_then, ids_now, judge_tests(before, after))
    allow = before.allow
    for failure in failures:
        if allowed(failure, allow):
            judgement.notes.append(f"allowed ({failure.code}): {failure.message}")
        else:
            judgement.failures.append(failure)
    return judgement


def allowed(failure: Failure, allow: list[str]) -> bool:
    """Whether the frozen ``allow`` option lets ``failure`` pass on purpose: its rule
    (``new-type-ignore``) or its rule and file (``removed-test:tests/test_old.py``)."""
    return failure.code is not None and failure.code != "gaming" and any(
        entry in (failure.code, f"{failure.code}:{failure.path}") for entry in allow)


#: Notes shown in the summary; the rest are counted.
SHOWN_NOTES = 10


def noted_summary(notes: list[str]) -> str:
    """Honest changes worth a look, for the summary: ``; noted: ...``."""
    if not notes:
        return ""
    more = f"; and {len(notes) - SHOWN_NOTES} more" if len(notes) > SHOWN_NOTES else ""
    return "; noted (not failures): " + "; ".join(notes[:SHOWN_NOTES]) + more


def gate_of(results: Iterable[CheckResult]) -> Gate:
    """What decides this session, for judging what a suppression hides: the checks of its
    baseline verification and the codes each reported in each file (``failing``)."""
    results = list(results)
    return Gate(sorted({r.name for r in results}),
                [list(row) for row in sorted({(r.name, f.path, f.code) for r in results
                                              for f in r.failures
                                              if f.path and f.code and not r.passed})])


def newly_skipped(then: dict[str, str], now: dict[str, str]) -> list[Failure]:
    """Tests of the baseline's pytest run that ran then and are skipped now."""
    out = ("skipped", "xfailed")
    skipped = sorted(t for t, how in now.items() if how in out and then.get(t, out[0]) not in out)
    if not skipped:
        return []
    shown = ", ".join(skipped[:SHOWN_NOTES]) + (" ..." if len(skipped) > SHOWN_NOTES else "")
    return [Failure(message=f"{len(skipped)} test(s) that ran at the session's start are "
                            f"skipped now ({shown}): make them pass instead of skipping them "
                            "(more-skipped)", code="more-skipped")]
