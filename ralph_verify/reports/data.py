"""A session, read back from ``.ralph/``, as the numbers a report shows: only the files are
read, and a missing or truncated one leaves its part empty (a crashed session is exactly what
one wants to look at)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ralph_verify.checks.api import Failure
from ralph_verify.checks.verification import Verification
from ralph_verify.errors import UsageError
from ralph_verify.loop.records import check_summary
from ralph_verify.loop.state import read_history, read_state, read_verification
from ralph_verify.project import git
from ralph_verify.records.plugin_state import BreakerState, CheckpointState
from ralph_verify.records.refusals import Safety, safety_stats
from ralph_verify.records.session import (
    AgentRecord,
    CheckSummary,
    IterationRecord,
    SessionState,
    VerdictRecord,
)


@dataclass
class FileStat:
    """Lines added and removed in one file by an iteration."""

    path: str
    added: int | None = None
    removed: int | None = None


@dataclass
class IterationData:
    """One line of history.jsonl, with what its files add."""

    number: int
    record: IterationRecord
    verification: Verification | None
    #: The feedback the agent read in this iteration's prompt (the previous verification's).
    feedback_sent: str = ""
    diffstat: list[FileStat] = field(default_factory=list)

    @property
    def checks(self) -> list[CheckSummary]:
        return self.record.checks

    @property
    def agent(self) -> AgentRecord:
        return self.record.agent or AgentRecord()

    @property
    def breaker(self) -> str:
        return BreakerState.of(self.record.plugin_state).state

    @property
    def verification_s(self) -> float:
        return self.verification.duration_s if self.verification is not None else 0.0


@dataclass
class Repeat:
    """A failure fingerprint seen in two or more verifications in a row."""

    fingerprint: str
    check: str
    message: str
    location: str | None
    #: Verification numbers (0: baseline) it was seen in.
    seen: list[int]
    longest: int
    still_failing: bool


@dataclass
class SessionData:
    """Everything the report shows, from one ``.ralph/`` folder."""

    dir: Path
    state: SessionState
    baseline: Verification | None
    iterations: list[IterationData]
    #: The guard's refusals during the session.
    safety: Safety = field(default_factory=Safety)

    @property
    def session(self) -> str:
        return self.state.session

    @property
    def verdict(self) -> VerdictRecord | None:
        return self.state.verdict

    @property
    def baseline_checks(self) -> list[CheckSummary]:
        """The baseline's checks, summed up as an iteration's are."""
        return [check_summary(r) for r in self.baseline.results] if self.baseline else []

    def verification(self, number: int) -> Verification | None:
        if number == 0:
            return self.baseline
        for iteration in self.iterations:
            if iteration.number == number:
                return iteration.verification
        return None

    def specs(self) -> list[tuple[str, str]]:
        """(spec, check name) of every check seen, in the order of the first verification."""
        seen: dict[str, str] = {}
        for checks in [self.baseline_checks, *(it.checks for it in self.iterations)]:
            for check in checks:
                seen.setdefault(check.spec, check.name)
        return list(seen.items())

    def repeats(self) -> list[Repeat]:
        """Fingerprints that persisted across verifications, longest run first."""
        verifications: list[tuple[int, Verification | None]] = (
            [(0, self.baseline)] if self.baseline else [])
        verifications += [(it.number, it.verification) for it in self.iterations]
        seen: dict[str, list[int]] = {}
        example: dict[str, tuple[str, Failure]] = {}
        for number, verification in verifications:
            for check in verification.results if verification is not None else []:
                for failure in check.failures:
                    numbers = seen.setdefault(failure.fingerprint, [])
                    if number not in numbers:
                        numbers.append(number)
                    example.setdefault(failure.fingerprint, (check.spec, failure))
        order = [number for number, _ in verifications]
        last = order[-1] if order else None
        found = []
        for fingerprint, numbers in seen.items():
            longest = _longest_run(numbers, order)
            if longest < 2:
                continue
            spec, failure = example[fingerprint]
            found.append(Repeat(fingerprint, spec, failure.message, failure.location, numbers,
                                longest, last in numbers))
        return sorted(found, key=lambda r: (-r.longest, r.seen[0], r.fingerprint))

    def integrity_findings(self) -> list[tuple[int, Failure]]:
        """Failures of the ``integrity`` check: (first verification seen, failure), deduplicated."""
        found: dict[tuple[str, str], tuple[int, Failure]] = {}
        for iteration in self.iterations:
            verification = iteration.verification
            for check in verification.results if verification is not None else []:
                if check.name != "integrity":
                    continue
                for failure in check.failures:
                    key = (failure.fingerprint, str(failure.location))
                    found.setdefault(key, (iteration.number, failure))
        return list(found.values())


def _longest_run(numbers: list[int], order: list[int]) -> int:
    present = set(numbers)
    best = run = 0
    for number in order:
        run = run + 1 if number in present else 0
        best = max(best, run)
    return best



def diffstat(root: Path, before: str, after: str) -> list[FileStat] | None:
    """``git diff --numstat`` between two checkpoint commits; ``None`` if git cannot tell."""
    try:
        out = git.git(root, "diff", "--numstat", "-z", before, after)
    except (git.GitError, OSError, ValueError):
        return None
    stats = []
    fields = out.split("\0")
    index = 0
    while index < len(fields) and fields[index]:
        added, removed, path = [*fields[index].split("\t", 2), "", ""][:3]
        if not path:  # a rename: the two paths follow
            path = fields[index + 2] if index + 2 < len(fields) else ""
            index += 2
        stats.append(FileStat(path, int(added) if added.isdigit() else None,
                              int(removed) if removed.isdigit() else None))
        index += 1
    return stats


def load_session(ralph_dir: Path, session: str | None = None) -> SessionData:
    """Read a session's files; ``session`` must be the one in ``state.json`` when given."""
    state = read_state(ralph_dir / "state.json")
    if state is None:
        raise UsageError(f"no session to report on: {ralph_dir / 'state.json'} is missing or "
                         "unreadable (run 'ralph-verify run' first)")
    if session is not None and session != state.session:
        raise UsageError(f"session {session!r} is not in {ralph_dir}: only the last session's "
                         f"files are kept, and that is {state.session!r}")
    root = Path(state.root or ralph_dir.parent)
    commits = CheckpointState.of(state.plugin_state).commits
    baseline = read_verification(ralph_dir / "iterations" / "000" / "verification.json")
    previous = baseline
    iterations = []
    for record in read_history(ralph_dir / "history.jsonl"):
        number = record.iteration
        verification = read_verification(ralph_dir / "iterations" / f"{number:03d}" /
                                         "verification.json")
        data = IterationData(number, record, verification,
                             feedback_sent=previous.feedback if previous is not None else "")
        before, after = commits.get(str(number - 1)), commits.get(str(number))
        stats = diffstat(root, before, after) if before and after else None
        data.diffstat = stats if stats is not None else [
            FileStat(path) for path in record.files_changed]
        iterations.append(data)
        previous = verification or previous

    safety = safety_stats(ralph_dir.parent, state.started_at or None)
    return SessionData(ralph_dir, state, baseline, iterations, safety)
