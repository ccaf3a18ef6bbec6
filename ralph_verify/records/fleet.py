"""A fleet's records: ``fleet.json`` (:class:`FleetDocument`, a :class:`LoopRecord` per loop).
Every field but the names has a default, so an older version's file still reads."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ralph_verify.errors import UsageError
from ralph_verify.records.codec import NOT_SAVED
from ralph_verify.records.files import parse, save


@dataclass
class LoopRecord:
    """One loop of a fleet: where it ran, how it ended, what it cost."""

    name: str
    folder: str = ""
    branch: str = ""
    #: The commit its branch started from.
    base: str = ""
    #: ``pending``, ``running`` or ``finished``.
    status: str = "pending"
    verdict: str | None = None
    reason: str = ""
    iterations: int = 0
    cost_usd: float = 0.0
    #: The cost a remote running loop last reported (its state file is out of reach).
    live_cost_usd: float | None = None
    started_at: str | None = None
    finished_at: str | None = None
    duration_s: float | None = None
    #: The part of ``duration_s`` spent in ``ralph-verify run`` itself.
    run_s: float | None = None
    exit_code: int | None = None
    host: str = ""
    worker: str = ""
    #: The host or worker it ran on.
    where: str = ""
    executor: str | None = None
    #: Its worktree or clone.
    workdir: str = ""
    #: A local running loop's ``state.json`` (its live iteration and cost).
    state: str | None = None
    attempts: int = 0
    commits: int = 0
    #: Its own HTML report and (a task's own repository) its commits' bundle, relative to
    #: the fleet's folder.
    report: str | None = None
    bundle: str | None = None
    verdict_note: str | None = None
    #: A fleet with ``depends-on``: the task's title, its status after the merge queue, and
    #: why (``tasks status`` shows them).
    title: str = ""
    task_status: str | None = None
    task_reason: str = ""
    #: Folder -> the checks its merge was verified against, and by whom.
    gate: dict[str, list[str]] | None = None
    gate_verified_by: str | None = None
    merge_s: float | None = None
    merge_commit: str | None = None
    merge_note: str | None = None
    #: The branch of its first try, kept when it was sent back.
    first_try: str | None = None
    #: A running loop's phase, as ``fleet status`` read it from its ``state.json``.
    phase: str = field(default="", metadata=NOT_SAVED)


@dataclass
class Totals:
    """The verdicts counted, and the iterations and cost summed, over a fleet's loops."""

    loops: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    iterations: int = 0
    cost_usd: float = 0.0

    @classmethod
    def of(cls, loops: Sequence[LoopRecord]) -> Totals:
        counts = Counter(loop.verdict or "pending" for loop in loops)
        return cls(len(loops), dict(sorted(counts.items())),
                   sum(loop.iterations for loop in loops),
                   round(sum(loop.cost_usd for loop in loops), 4))

    @property
    def complete(self) -> int:
        """Loops that finished their work."""
        return self.verdicts.get("complete", 0) + self.verdicts.get("nothing-to-do", 0)


@dataclass
class MergedTask:
    """A task merged into the integration branch, and its merge commit."""

    task: str
    commit: str


@dataclass
class FinalCheck:
    """The ``final`` check on the integration branch, after the last task."""

    passed: bool
    #: Folder -> the checks run there.
    checks: dict[str, str] = field(default_factory=dict)
    feedback: str = ""
    duration_s: float = 0.0


@dataclass
class IntegrationRecord:
    """A fleet with ``depends-on``: its integration branch and what was merged into it."""

    branch: str
    commit: str | None = None
    merged: list[MergedTask] = field(default_factory=list)
    final: FinalCheck | None = None
    #: The list's verdict, as ``run --tasks`` words it (``complete``, ``incomplete``,
    #: ``final-failed``, ``stopped``, ``cancelled``), and why; ``None`` while it runs.
    verdict: str | None = None
    reason: str = ""


@dataclass
class FleetDocument:
    """``fleet.json``: the fleet and one record per loop, rewritten as each result arrives."""

    fleet: str
    repository: str = ""
    base: str = ""
    executor: str | None = None
    shard: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    #: Why the fleet stopped early.
    cancelled: str | None = None
    loops: list[LoopRecord] = field(default_factory=list)
    #: ``fleet merge``: the shards' folders.
    merged_from: list[str] | None = None
    integration: IntegrationRecord | None = None
    #: Counted from ``loops`` when the file is written (for readers of the file alone).
    totals: Totals | None = None


@dataclass
class FleetProcess:
    """``fleet.pid``: the process of a running fleet, for ``fleet status`` and ``cancel``."""

    pid: int
    host: str
    fleet: str


def _without_nulls(data: object) -> object:
    """``null`` reads as the field's default (older files wrote it for fields never set)."""
    if isinstance(data, dict):
        return {key: _without_nulls(value) for key, value in data.items() if value is not None}
    if isinstance(data, list):
        return [_without_nulls(item) for item in data]
    return data


def read_fleet(path: Path) -> FleetDocument:
    """``fleet.json`` in ``path``; a :class:`~ralph_verify.errors.UsageError` naming the file
    when it cannot be read or is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror}); is it the --out folder "
                         "of a fleet run?") from None
    except ValueError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc})") from None
    return parse(FleetDocument, path, _without_nulls(data))


def write_fleet(path: Path, document: FleetDocument) -> None:
    """Write ``fleet.json`` atomically, with its totals counted."""
    document.totals = Totals.of(document.loops)
    save(path, document)
