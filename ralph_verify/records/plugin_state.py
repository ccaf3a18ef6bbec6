"""The built-in plugins' saved state (``Session.plugin_state[NAME]``), typed, for readers
that do not import the plugins; a malformed field reads as its default."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from ralph_verify.records.codec import ShapeError, decode

T = TypeVar("T")


def of_json(cls: type[T], data: object) -> T:
    """A plugin's saved state as a ``cls``: a malformed field takes its default, the others
    are kept (an edited counter never drops the reference to a frozen baseline)."""
    if isinstance(data, cls):
        return data  # held live by its plugin (saved with the session's records)
    if not isinstance(data, dict):
        return cls()
    try:
        return decode(cls, data)
    except ShapeError:
        good = {}
        for key, value in data.items():
            try:
                decode(cls, {key: value})
            except ShapeError:
                continue
            good[key] = value
        return decode(cls, good)


S = TypeVar("S", bound="Saved")


class Saved:
    """A built-in plugin's saved state, ``plugin_state[NAME]``."""

    NAME: ClassVar[str]

    @classmethod
    def of(cls: type[S], plugin_state: Mapping[str, Any]) -> S:
        return of_json(cls, plugin_state.get(cls.NAME))


@dataclass
class BrokenCheckpoint:
    """An iteration whose tree could not be committed where it belongs, and why."""

    iteration: int
    what: str


@dataclass
class CheckpointState(Saved):
    """``plugin_state["checkpoint"]``: the session's branch and a commit per iteration."""

    NAME = "checkpoint"

    #: Whether the root is a git repository (``None``: not looked at, in hook mode).
    git: bool | None = None
    #: The session's own branch (``None``: the work stays on the user's branch).
    branch: str | None = None
    from_branch: str | None = None
    from_tip: str | None = None
    #: Iteration number (as text; ``"0"``: the start) -> commit.
    commits: dict[str, str | None] = field(default_factory=dict)
    last_commit: str | None = None
    recovery: str | None = None
    dirty_at_start: list[str] = field(default_factory=list)
    #: Hook mode: the checkpoints are commits on a branch beside HEAD.
    beside: bool = False
    broken: BrokenCheckpoint | None = None
    left_branch: str | None = None

    @property
    def own_branch(self) -> str | None:
        return self.branch or self.from_branch


@dataclass
class BudgetState(Saved):
    """``plugin_state["budget"]``: time and cost spent, the agent calls of the last hour."""

    NAME = "budget"

    elapsed_s: float = 0.0
    cost_usd: float = 0.0
    calls: list[float] = field(default_factory=list)
    elapsed_before_s: float = 0.0
    run_started: float | None = None


@dataclass
class BreakerState(Saved):
    """``plugin_state["breaker"]``: the stall breaker's circuit (``closed``, ``half-open``,
    ``open``), its counters and the rule that tripped."""

    NAME = "breaker"

    state: str = "closed"
    #: The last iteration counted (so a hook called twice counts once).
    iteration: int = 0
    counters: dict[str, int] = field(default_factory=dict)
    thresholds: dict[str, int] = field(default_factory=dict)
    fingerprints: list[str] = field(default_factory=list)
    score: dict[str, float | None] = field(default_factory=dict)
    best: dict[str, float | None] = field(default_factory=dict)
    #: The rule that tripped (half-open, open) and why.
    rule: str | None = None
    reason: str = ""
    note: str = ""


@dataclass
class IntegrityState(Saved):
    """``plugin_state["integrity"]``: the session's integrity picture, frozen at its start
    out of the agent's reach, and what ``status`` says of it."""

    NAME = "integrity"

    #: The reference to the picture (tests, markers, settings, files) frozen at the session's
    #: start, as saved: :func:`~ralph_verify.loop.frozen.thaw` checks it (an edited one is
    #: a finding, never a reason to skip the comparison).
    frozen: object = None
    #: The picture's copy in the project, relative to the root.
    baseline: str = ""
    taken_at: str | None = None
    tests: int = 0
    markers: int = 0
    settings: int = 0


@dataclass
class FleetState(Saved):
    """``plugin_state["fleet"]``: inside a fleet's loop, what its agent spent of its share."""

    NAME = "fleet"

    cost_usd: float = 0.0


@dataclass
class AgentErrorState(Saved):
    """``plugin_state["agent_error"]``: the agent's failed runs in a row, and its turns in a
    row whose writes its own sandbox or permission mode refused (the last refusal's text)."""

    NAME = "agent_error"

    failures_in_a_row: int = 0
    refused_in_a_row: int = 0
    refusal: str = ""
