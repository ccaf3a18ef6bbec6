"""One judgement of a tree against the session's baseline, the integrity check's core: the
check and the real-history benchmark both judge through :func:`judge`, so the benchmark
measures exactly what a loop iteration is told."""

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


def judge(root: Path, before: Picture | None, *, checks: Iterable[str] | None = None,
          keep: Sequence[str] = ("tests/**",),
          precision: dict[str, list[int]] | None = None) -> Judgement:
    """Judge ``root`` against ``before`` (the session's start; ``None``: only take the
    picture, with ``keep``); ``checks``: this verification's (the tool settings of the
    others decide nothing; default: the session's gate, else every tool's);
    ``precision``: this verification's mypy line precision (see
    :mod:`ralph_verify.integrity.rules.escapes`)."""
    from ralph_verify.integrity.picture import take

    if before is None:
        return Judgement(take(root, protected=[], keep=keep))
    after = take(root, protected=before.protected_globs, keep=before.keep_globs,
                 allow=before.allow, previous=before)
    after.precision = precision or {}
    judgement = Judgement(after)
    if checks is None:
        checks = before.gate.checks if before.gate is not None else ()
    judgement.failures = compare(before, after, root, set(checks), judgement.notes)
    return judgement


def compare(before: Picture, after: Picture, root: Path, checks: set[str] | None = None,
            notes: list[str] | None = None) -> list[Failure]:
    """What got weaker from ``before`` to ``after``, rule after rule (a finding whose code its
    rule ``yields`` is left out on a line a finding that does not yield reported before it).
    Honest changes worth a look, and findings the frozen ``allow`` lets pass, go to
    ``notes``."""
    from ralph_verify.integrity.rule import Pair, let_pass
    from ralph_verify.integrity.rules import RULES

    pair = Pair(before, after, root, checks or set(), [] if notes is None else notes)
    found: list[Failure] = []
    places: set[tuple[str | None, int | None]] = set()  # lines of findings that do not yield
    for rule in RULES:
        for failure in rule.compare(pair):
            place = (failure.path, failure.line)
            if let_pass(failure, before.allow):
                pair.notes.append(f"allowed ({failure.code}): {failure.message}")
            elif failure.code not in rule.yields or place not in places:
                found.append(failure)
                places |= {place} if failure.code not in rule.yields else set()
    return found


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
