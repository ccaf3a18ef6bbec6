"""How a ``run`` ended (:class:`LoopResult`), apart so that the run driver and ``api.py`` both
import it at their top."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.verification import Verification, VerificationRecord
from ralph_verify.loop.records import iteration_record
from ralph_verify.records.codec import encode
from ralph_verify.records.refusals import Safety
from ralph_verify.records.session import IterationRecord

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.verdict import Verdict


@dataclass
class LoopResult:
    """How a run ended. ``verdict`` is ``None`` when it stopped before the first iteration
    because a check could not decide at baseline (exit code 3)."""

    verdict: Verdict | None
    reason: str
    exit_code: int
    session: Session
    #: The last verification (the baseline when no iteration ran).
    verification: Verification | None
    duration_s: float

    @property
    def iterations(self) -> list[Iteration]:
        return self.session.iterations

    def record(self, safety: Safety | None = None) -> RunRecord:
        """The run as ``run --json`` writes it; ``safety``: the guard's refusals."""
        return RunRecord(
            session=self.session.id, verdict=self.verdict.value if self.verdict else None,
            reason=self.reason, exit_code=self.exit_code, duration_s=round(self.duration_s, 3),
            iterations=[iteration_record(it, self.session) for it in self.iterations],
            verification=self.verification.record() if self.verification else None,
            safety=safety)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self.record())
        return data


@dataclass
class RunRecord:
    """``run --json``: how the run ended, its iterations and its last verification."""

    session: str
    verdict: str | None
    reason: str
    exit_code: int
    duration_s: float
    iterations: list[IterationRecord]
    verification: VerificationRecord | None
    safety: Safety | None = None
