"""The session's records: ``.ralph/state.json`` (:class:`SessionState`) and each line of
``.ralph/history.jsonl`` (:class:`IterationRecord`), written by both drivers and read by every
reader through :mod:`ralph_verify.records.files`, never as loose dictionaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The version of the layout of ``state.json`` this ralph-verify writes (``version``). Files
#: of an older version read as they are: fields added since take their defaults.
SCHEMA = 1

#: Checks whose metric is a percentage, drawn on the chart's right axis.
PERCENT_CHECKS = frozenset({"coverage", "diffcover"})

#: A setting given on the command line, kept for ``--resume``.
SettingValue = str | bool | int | float | list[str | bool | int | float]


@dataclass
class VerdictRecord:
    """How a session (or an iteration) ended: the verdict, why, and who proposed it."""

    verdict: str
    reason: str = ""
    source: str | None = None


@dataclass
class CheckSummary:
    """One check of a verification, as ``state.json`` and the history keep it: its outcome
    and numbers, not its failures (those are in ``iterations/NNN/verification.json``)."""

    name: str
    spec: str
    status: str
    summary: str = ""
    metric: float | None = None
    counts: dict[str, int | float] = field(default_factory=dict)
    #: How many failures it listed, and how many of them the baseline had already.
    failures: int = 0
    pre_existing: int = 0
    fingerprints: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.status in ("passed", "skipped")

    @property
    def problems(self) -> float | None:
        """How many problems it reports (``None``: it could not decide): failing tests for
        test checks, errors for lint and type checks, else the failures it listed."""
        if self.status == "error":
            return None
        if "failed" in self.counts:
            return float(self.counts.get("failed", 0) + self.counts.get("errors", 0))
        if "errors" in self.counts:
            return float(self.counts["errors"])
        return float(self.failures)

    @property
    def series_value(self) -> float | None:
        """The number charted for it: its percentage, or its number of problems."""
        if self.name in PERCENT_CHECKS:
            return self.metric
        return self.problems


@dataclass
class UnavailableRecord:
    """Why the model service turned an agent's run away (a rate limit, an outage)."""

    kind: str
    message: str
    retry_after_s: float | None = None


@dataclass
class AgentRecord:
    """The agent's turn of one iteration, as the history keeps it."""

    exit_code: int | None = None
    duration_s: float | None = None
    timed_out: bool = False
    cancelled: bool = False
    error: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    turns: int | None = None
    session_id: str | None = None
    idle_s: float | None = None
    retries: int = 0
    survivors: list[str] = field(default_factory=list)
    waited_s: float = 0.0
    unavailable: UnavailableRecord | None = None


@dataclass
class IterationRecord:
    """One line of ``history.jsonl``: one iteration, written when it ends."""

    iteration: int
    started_at: str = ""
    duration_s: float = 0.0
    #: The prompt's file, relative to the project root.
    prompt: str | None = None
    agent: AgentRecord | None = None
    files_changed: list[str] = field(default_factory=list)
    promises: list[str] = field(default_factory=list)
    passed: bool | None = None
    checks: list[CheckSummary] = field(default_factory=list)
    commit: str | None = None
    verdict: VerdictRecord | None = None
    #: Every plugin's state after the iteration (``Session.plugin_state``).
    plugin_state: dict[str, Any] = field(default_factory=dict)


@dataclass
class FrozenRef:
    """Where a copy frozen out of the agent's reach lies, and its digest
    (:mod:`ralph_verify.loop.frozen`)."""

    path: str
    sha256: str


@dataclass
class CapMark:
    """Hook mode: the agent's own cap on blocked stops may have ended its turn here."""

    cap: int
    iteration: int
    at: str


@dataclass
class HookTasks:
    """Hook mode, ``start --tasks``: this session is one task of a list."""

    frozen: FrozenRef
    failed_in_a_row: int = 0
    #: The session's own branch, carried to the next task's session.
    branch: str | None = None


@dataclass
class HookRecord:
    """Hook mode: which agent session drives the loop and how its last stops went."""

    agent: str | None = None
    #: The agent session bound to the loop (``None``: the first Stop hook call binds it).
    session_id: str | None = None
    bound_by: str | None = None
    blocks_in_a_row: int = 0
    last_decision: str | None = None
    last_stop_at: str | None = None
    note: str = ""
    block_cap_reached: CapMark | None = None
    #: The configuration frozen at ``start`` (absent in loops started by older versions).
    frozen_config: FrozenRef | None = None
    tasks: HookTasks | None = None


@dataclass
class SessionState:
    """``.ralph/state.json``: where the session is, rewritten atomically at every phase."""

    session: str
    version: int = SCHEMA
    pid: int | None = None
    root: str = ""
    #: ``running`` or ``finished``.
    status: str = "running"
    phase: str = ""
    started_at: str = ""
    updated_at: str = ""
    elapsed_s: float = 0.0
    iteration: int = 0
    max_iterations: int = 0
    agent: str | None = None
    until: list[str] = field(default_factory=list)
    task: str | None = None
    settings: dict[str, SettingValue] = field(default_factory=dict)
    passed: bool | None = None
    #: The last verification's checks.
    checks: list[CheckSummary] = field(default_factory=list)
    verdict: VerdictRecord | None = None
    error: str | None = None
    #: The last iteration's folder, relative to the root.
    log_dir: str = ""
    plugin_state: dict[str, Any] = field(default_factory=dict)
    #: ``run`` (ralph-verify runs the agent) or ``hook`` (the agent's Stop hook drives it).
    mode: str = "run"
    hook: HookRecord | None = None

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def verdict_name(self) -> str | None:
        return self.verdict.verdict if self.verdict is not None else None
