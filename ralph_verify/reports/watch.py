"""``ralph-verify status --watch``: follow a session from another terminal, reading only its
files (a terminal is redrawn in place, anything else gets a line per event); returns the
run's exit code when the session ends."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ralph_verify.display import duration, tally
from ralph_verify.errors import UsageError
from ralph_verify.exitcode import ExitCode
from ralph_verify.loop.state import StateDir, read_state
from ralph_verify.loop.verdict import EXIT_CODES, Verdict
from ralph_verify.records.codec import decode
from ralph_verify.records.plugin_state import BreakerState
from ralph_verify.records.session import AgentRecord, CheckSummary, IterationRecord, SessionState
from ralph_verify.reports.tasks import task_section
from ralph_verify.terminal_text import strip_controls

SPARKS = "▁▂▃▄▅▆▇█"
#: Marks an iteration whose check could not decide.
ERROR_MARK = "\u00d7"
CLEAR = "\x1b[H\x1b[2J"
SHOWN_ITERATIONS = 5


class History:
    """``history.jsonl`` read incrementally: only complete new lines, from the last offset."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.records: list[IterationRecord] = []

    def reset(self) -> None:
        self.offset = 0
        self.records = []

    def poll(self) -> list[IterationRecord]:
        """The records appended since the last call."""
        try:
            with self.path.open("rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                if size < self.offset:  # a new session started over
                    self.reset()
                handle.seek(self.offset)
                chunk = handle.read()
        except OSError:
            return []
        end = chunk.rfind(b"\n") + 1
        self.offset += end
        new = []
        for line in chunk[:end].splitlines():
            try:
                new.append(decode(IterationRecord, json.loads(line)))
            except (ValueError, RecursionError):  # ShapeError too: a reader only watches
                continue
        self.records += new
        return new


def sparkline(values: list[float | None]) -> str:
    """``▇▅▄▁``, scaled from 0; :data:`ERROR_MARK` where the check could not decide."""
    known = [v for v in values if v is not None]
    top = max(known, default=0.0)
    low = min(0.0, *known)
    out = []
    for value in values:
        if value is None:
            out.append(ERROR_MARK)
        elif top == low:
            out.append(SPARKS[0] if top == 0 else SPARKS[len(SPARKS) // 2])
        else:
            out.append(SPARKS[round((value - low) / (top - low) * (len(SPARKS) - 1))])
    return "".join(out)


def _condition(state: SessionState, alive: bool) -> str:
    if state.finished:
        return "finished"
    return f"running (pid {state.pid})" if alive else "interrupted"


def _check_line(check: CheckSummary, width: int) -> str:
    summary = " ".join(check.summary.split())
    return f"  {check.status.upper():<7} {check.spec:<{width}}  {summary}"


def _value(check: CheckSummary) -> str:
    value = check.series_value
    return "error" if value is None else f"{value:g}"


def _iteration_line(record: IterationRecord) -> str:
    checks = record.checks
    agent = record.agent or AgentRecord()
    if agent.error:
        agent_text = f"agent could not run: {agent.error}"
    else:
        agent_text = f"agent exit {agent.exit_code} in {duration(agent.duration_s or 0.0)}"
    if agent.cost_usd is not None:
        agent_text += f" ${agent.cost_usd:.2f}"
    files = len(record.files_changed)
    failing = ", ".join(f"{c.spec} {_value(c)}" for c in checks
                        if c.status in ("failed", "error"))
    breaker = BreakerState.of(record.plugin_state).state
    text = (f"iteration {record.iteration}: {tally([c.status for c in checks])}; "
            f"{agent_text}; changed {files} file{'s' if files != 1 else ''}; "
            f"breaker {breaker}")
    return text + (f"; failing: {failing}" if failing else "")


def screen(state: SessionState, records: list[IterationRecord], alive: bool,
           describe: Callable[[str, object], str | None], width: int) -> str:
    """The full-screen view (without the clear sequence)."""
    lines = [f"ralph-verify · session {state.session} · {_condition(state, alive)} · "
             f"agent {state.agent}",
             f"iteration {state.iteration}/{state.max_iterations} · phase: {state.phase} · "
             f"elapsed {duration(state.elapsed_s)}"]
    task = task_line(state)
    if task:
        lines.append(task)
    checks = state.checks
    lines += ["", f"checks (last verification): {tally([c.status for c in checks], '')}"]
    specs = [c.spec for c in checks]
    lines += [_check_line(check, max(map(len, specs))) for check in checks]
    if records and specs:
        lines += ["", "progress per iteration (problems; coverage in %)"]
        label = max(len(spec) for spec in specs)
        for spec in specs:
            values = [c.series_value for r in records for c in r.checks if c.spec == spec]
            shown = "error" if values and values[-1] is None else (
                f"{values[-1]:g}" if values and values[-1] is not None else "-")
            lines.append(f"  {spec:<{label}}  {sparkline(values[-(width - label - 20):])}  "
                         f"{shown}")
    for name, value in state.plugin_state.items():
        text = describe(name, value) if isinstance(value, dict) else None
        if text:
            lines.append(f"{name}: {text}")
    if records:
        lines += ["", "last iterations:"]
        lines += [f"  {_iteration_line(r)}" for r in records[-SHOWN_ITERATIONS:]]
    capped = cap_note(state)
    if capped:
        lines += ["", capped]
    verdict = state.verdict
    lines.append("")
    if verdict is not None:
        lines.append(f"verdict: {verdict.verdict} — {verdict.reason}")
    elif state.error:
        lines.append(f"stopped: {state.error}")
    else:
        lines.append("verdict: none yet")
    lines = [strip_controls(line) for line in lines]  # state text can come from the agent
    return "\n".join(line[:width] if len(line) > width else line for line in lines)


def task_line(state: SessionState, root: str | None = None) -> str | None:
    """``run --tasks``, ``start --tasks``: which task of the list this session is."""
    root = root or state.root
    tasks = task_section(Path(root) / ".ralph", state.task or "") if root else None
    if tasks is None:
        return None
    return (f"task {tasks.mine} of {tasks.file} · {tasks.done}/{len(tasks.rows)} tasks done "
            f"· list {tasks.verdict or 'running'}")


def cap_note(state: SessionState) -> str | None:
    """Hook mode: the line saying Claude Code's own block cap may have ended the session."""
    hook = state.hook
    mark = hook.block_cap_reached if hook is not None else None
    if state.finished or hook is None or mark is None:
        return None
    if hook.agent == "copilot":
        return (f"stopped by Copilot CLI's block cap: iteration {mark.iteration} came "
                f"after {mark.cap} blocked stops in a row, and Copilot ends the turn "
                "there; the loop does not move until the session gets a new message "
                "('ralph-verify cancel' ends the loop)")
    return (f"stopped by Claude Code's block cap? iteration {mark.iteration} was its "
            f"{mark.cap}th Stop-hook block in a row: Claude Code ends the turn there, "
            "and the loop does not move until the session gets a new message "
            "('ralph-verify init claude' raises the cap; 'ralph-verify cancel' ends the loop)")


def exit_code_of(state: SessionState) -> int:
    """What ``run`` returned for this state: its verdict's exit code (3: stopped at baseline)."""
    try:
        return EXIT_CODES[Verdict(state.verdict_name)]
    except ValueError:
        return ExitCode.CHECK_ERROR if state.error else ExitCode.CHECKS_FAILED


def watch(root: Path, *, interval: float, out: TextIO | None = None,
          live: bool | None = None,
          describe: Callable[[str, object], str | None] = lambda name, value: None,
          alive: Callable[[SessionState], bool] | None = None) -> int:
    """Follow the session in ``root/.ralph`` until it ends; returns the run's exit code."""
    out = out or sys.stdout
    if live is None:
        live = out.isatty() and os.environ.get("TERM") != "dumb"
    state_dir = StateDir(root)
    history = History(state_dir.history_path)
    is_alive = alive or (lambda state: _holder_matches(state_dir, state))
    session = None
    last_phase = None
    waiting_said = False
    while True:
        state = _read_state(state_dir.state_path)
        if state is None:
            if not waiting_said:
                out.write(f"waiting for a session in {root} (no .ralph/state.json yet)\n")
                out.flush()
                waiting_said = True
            time.sleep(interval)
            continue
        if state.session != session:
            session = state.session
            history.reset()
            last_phase = None
            if not live:
                out.write(f"session {session} · agent {state.agent} · until "
                          f"{','.join(state.until)}\n")
                task = task_line(state, str(root))
                if task:
                    out.write(strip_controls(task) + "\n")
        new = history.poll()
        alive_now = is_alive(state)
        finished = state.finished or not alive_now
        if live:
            width = shutil.get_terminal_size((120, 40)).columns
            footer = ("" if finished else
                      f"\n\n(refreshing every {interval:g}s · Ctrl-C stops watching, "
                      "not the run)")
            out.write(CLEAR + screen(state, history.records, alive_now, describe, width)
                      + footer + "\n")
        else:
            for record in new:
                out.write(strip_controls(_iteration_line(record)) + "\n")
            phase = (state.iteration, state.phase)
            capped = cap_note(state)
            if phase != last_phase and not finished:
                out.write(f"iteration {phase[0]}/{state.max_iterations}: {phase[1]}\n")
                if capped:
                    out.write(strip_controls(capped) + "\n")
            last_phase = phase
            if finished:
                out.write(screen(state, [], alive_now, describe, 10_000).splitlines()[-1] + "\n")
                if not state.finished:
                    out.write("the run is no longer running: go on with "
                              "'ralph-verify run --resume'\n")
        out.flush()
        if finished:
            return exit_code_of(state) if state.finished else 1
        time.sleep(interval)


def _read_state(path: Path) -> SessionState | None:
    try:
        return read_state(path)
    except UsageError:
        return None  # caught between two writes on a platform without rename


def _holder_matches(state_dir: StateDir, state: SessionState) -> bool:
    """Whether the session still runs: its process holds the lock, or (hook mode) the
    agent's Stop hook drives it, holding the lock only while it verifies a stop; such a
    session ends with its verdict, or with 'ralph-verify cancel'."""
    if state.mode == "hook":
        return True
    holder = state_dir.lock_holder()
    return holder is not None and holder.session == state.session
