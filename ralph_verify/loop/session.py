"""The data of a loop session and its iterations, shared by the loop and its plugins; a plugin
keeps its own state in ``session.plugin_state[plugin_name]``, saved in ``state.json`` for
``--resume``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ralph_verify.agents import AgentResult
    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config
    from ralph_verify.loop.settings import SessionSettings
    from ralph_verify.loop.verdict import VerdictProposal


@dataclass
class Iteration:
    """One turn: prompt -> agent -> verification -> record -> decide."""

    number: int
    prompt: str = ""
    prompt_path: Path | None = None
    agent: AgentResult | None = None
    verification: Verification | None = None
    #: Paths (relative to the root) the agent changed in this iteration.
    files_changed: list[str] = field(default_factory=list)
    started_at: str = ""
    duration_s: float = 0.0
    #: Set by the core once the verdict of this iteration is decided.
    verdict: VerdictProposal | None = None
    #: Texts of the promise tags the agent printed itself (``COMPLETE``, ``BLOCKED: why``).
    promises: list[str] = field(default_factory=list)
    #: What the agent may still spend in this run, in USD (``None``: no cap). Set by the budget
    #: policy in ``ralph_iteration_start``; adapters whose CLI has its own budget flag pass it
    #: on (Claude Code ``--max-budget-usd``), so a runaway turn stops inside the CLI.
    budget_usd: float | None = None
    #: The commit holding the tree this iteration left (set by a checkpointing plugin in
    #: ``ralph_iteration_end``; ``None``: not committed). Recorded in history.jsonl.
    commit: str | None = None


@dataclass
class Session:
    """One loop session (``run``, or hook mode's): its settings, baseline, iterations and
    per-plugin state."""

    id: str
    root: Path
    #: The session's folder, ``ROOT/.ralph``.
    dir: Path
    #: The session's configuration: the command line's, answering ``settings.options`` first.
    config: Config
    #: What the session runs with, fixed before it opened (until, task, limit, options).
    settings: SessionSettings
    baseline: Verification | None = None
    iterations: list[Iteration] = field(default_factory=list)
    started_at: str = ""
    #: Per-plugin JSON-serialisable state, saved in state.json.
    plugin_state: dict[str, Any] = field(default_factory=dict)
    #: Set when a cancel was requested (Ctrl-C, ``ralph-verify cancel``).
    cancel_requested: bool = False
    #: True when this run continues an interrupted session (``run --resume``).
    resumed: bool = False
    #: Wall time of the session's earlier runs, when resumed (its ``elapsed_s`` adds up).
    elapsed_before_s: float = 0.0
    #: Who drives the session: ``"run"`` (ralph-verify runs the agent) or ``"hook"`` (the
    #: agent's Stop hook runs one iteration each time the agent wants to stop).
    mode: str = "run"

    @property
    def task(self) -> str:
        return self.settings.task

    @property
    def max_iterations(self) -> int:
        """The limit ``--max-iterations`` (or a task's) sets; the ``max_iterations`` plugin
        holds the session to it."""
        return self.settings.max_iterations

    @property
    def last(self) -> Iteration | None:
        return self.iterations[-1] if self.iterations else None

    def previous_verification(self) -> Verification | None:
        """The verification the next prompt is built from: the last one, else the baseline."""
        for iteration in reversed(self.iterations):
            if iteration.verification is not None:
                return iteration.verification
        return self.baseline
