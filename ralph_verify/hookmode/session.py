"""Hook mode's session: ``start`` opens it; its state between two stops (state.json, the
tree snapshot, the configuration frozen at ``start``); ``cancel`` of it."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.registry import build_checks, registry_of, validate_checks
from ralph_verify.config.pyproject import load_table, validate_settings
from ralph_verify.exitcode import ExitCode
from ralph_verify.hookmode import binding
from ralph_verify.hookmode.install import CAP_ENV
from ralph_verify.hookmode.protocol import log
from ralph_verify.loop.cycle import session_specs
from ralph_verify.loop.frozen import FrozenError, freeze, thaw
from ralph_verify.loop.opening import holding, new_session, new_session_id
from ralph_verify.loop.opening import open_session as open_loop_session
from ralph_verify.loop.prompt import RULES
from ralph_verify.loop.records import persisted_settings, state_record
from ralph_verify.loop.settings import SessionSettings, settings_for, stored_specs
from ralph_verify.loop.state import StateDir
from ralph_verify.loop.verdict import EXIT_CODES, Verdict, VerdictProposal
from ralph_verify.project import git, snapshot
from ralph_verify.project.snapshot import Entry
from ralph_verify.records.session import FrozenRef, HookRecord, SessionState, VerdictRecord
from ralph_verify.state_files import now_iso

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.config.until import CheckSpec
    from ralph_verify.loop.session import Session
    from ralph_verify.loop.state import StateDir
    from ralph_verify.loop.verdict import VerdictProposal


MODE = "hook"
#: Claude Code's consecutive-block cap when the environment does not set one.
DEFAULT_CLAUDE_BLOCK_CAP = 9
SNAPSHOT_FILE = "hook-snapshot.json"
WAITING = "waiting for the agent to stop"


def block_cap() -> int:
    """Claude Code's consecutive Stop-hook block cap in this environment."""
    try:
        return max(1, int(os.environ.get(CAP_ENV, "")))
    except ValueError:
        return DEFAULT_CLAUDE_BLOCK_CAP


def budget_s(config: Config) -> float:
    """Seconds the checks may take: below the hook timeout the agent enforces."""
    timeout = float(config.get("hook_timeout"))
    return max(1.0, timeout * 0.9 - 5)


def loop_specs(session: Session) -> list[CheckSpec]:
    """The checks of a hook-mode session: its ``until`` and what plugins add."""
    return session_specs(session.config, session.settings.until)


# --- start -----------------------------------------------------------------------------------


def start_loop(config: Config) -> int:
    """The ``start`` command: record the loop, take the baseline, tell the agent the rules."""
    state = StateDir(config.root)
    # a bad --until is a usage error before anything is written
    settings = settings_for(config, resume=False,
                            task=" ".join(config.get("start_task") or []).strip())
    session_id = new_session_id()
    with starting(state, session_id):
        opened = open_session(config, state, session_id, settings)
    print(opened.message)
    return opened.code


@contextlib.contextmanager
def starting(state: StateDir, session_id: str) -> Iterator[None]:
    """``start`` (one task or a list) holds the lock while it records the loop, and says so
    when it replaces a loop that has not finished."""
    with holding(state, session_id, print):
        previous = state.read_state()
        if previous is not None and previous.mode == MODE and not previous.finished:
            print(f"ralph-verify: replacing the unfinished loop {previous.session} "
                  f"(iteration {previous.iteration})")
        yield


@dataclass
class Opened:
    """How :func:`open_session` went: ``waiting`` (for the agent's first stop), ``passed``
    (every check passes already), ``idle`` (nothing to do) or ``error`` (a check could not
    decide at the baseline); the exit code and what to tell the user or the agent."""

    kind: str
    code: int
    message: str


def open_session(config: Config, state: StateDir, session_id: str, settings: SessionSettings,
                 hook_base: HookRecord | None = None) -> Opened:
    """Record a session and take its baseline (the caller holds the lock): ``start``, and
    the Stop hook when a task list goes on with its next task (``hook_base``: the binding
    and the list, carried over)."""
    # Hook mode works on the user's branch: the checkpoint plugin's prepare sees
    # session.mode and switches to no session branch (it commits beside HEAD).
    session = new_session(config, state, settings, session_id, MODE)
    config = session.config
    specs = loop_specs(session)
    checks = build_checks(config, [s for s in specs if s.name != "integrity"])
    opening = open_loop_session(session, state, checks, fresh=True, tool_output=sys.stderr)
    (state.path / SNAPSHOT_FILE).unlink(missing_ok=True)
    if hook_base is None:
        bind(config, session_id)
    else:  # a task list's next task: the same agent session goes on under a new loop id
        binding.follow(config.root, session_id)
    hook = replace(hook_base) if hook_base is not None else fresh_hook(config)
    from ralph_verify.hookmode.permissions import edit_refusal_warning

    refusal = edit_refusal_warning(config.root, hook.agent)
    if refusal and hook_base is None:
        print(f"WARNING: {refusal}", file=sys.stderr)
    assert session.baseline is not None
    if opening.errored:
        write_state(state, session, hook, phase="finished",
                    error="a check could not decide at baseline")
        lines = ["ralph-verify: the baseline verification could not decide, so no loop was "
                 "started; fix these first:"]
        lines += [f"  {result.spec}: {result.summary}" for result in session.baseline.errored]
        return Opened("error", ExitCode.CHECK_ERROR, "\n".join(lines))
    if opening.verdict is not None:
        write_state(state, session, hook, phase="finished", verdict=opening.verdict)
        if opening.verdict.verdict is Verdict.COMPLETE:
            return Opened("passed", 0, f"ralph-verify: every check of {until_text(specs)} "
                                       "passes already; no loop started.")
        return Opened("idle", EXIT_CODES[opening.verdict.verdict],
                      f"ralph-verify: no loop started: {opening.verdict.reason}.")
    hook.frozen_config = freeze_config(session)
    write_snapshot(state, snapshot.take(config.root, None, use_git=git.is_repo(config.root)))
    message = start_message(session, specs, session.baseline.feedback)
    state.write_text(state.iteration_dir(1) / "prompt.md", message)
    write_state(state, session, hook, phase=WAITING)
    return Opened("waiting", 0, message)


def _bound(config: Config) -> str | None:
    """The agent session ``--session-id`` names, else the Claude Code session we run in."""
    return config.get("session_id") or os.environ.get("CLAUDE_CODE_SESSION_ID") or None


def bind(config: Config, loop: str) -> None:
    """Bind the loop ``start`` opens to :func:`_bound`'s session (and, run inside that
    session, to its processes); else the first stop binds it."""
    bound = _bound(config)
    binding.bind_at_start(config.root, loop, bound, in_session=bool(bound)
                          and bound == os.environ.get("CLAUDE_CODE_SESSION_ID"))


def fresh_hook(config: Config) -> HookRecord:
    """The hook record of a loop ``start`` opens, bound to :func:`_bound`'s session if any."""
    bound = _bound(config)
    agent = config.get("agent_name") or ("claude" if bound else None)
    return HookRecord(agent=agent, session_id=bound,
                      bound_by="start" if bound else None)


def freeze_config(session: Session) -> FrozenRef:
    """Freeze the session's effective configuration out of the agent's reach (a reference)."""
    config = session.config
    return freeze(config.root, session.id, "config.json", {
        "table": load_table(config.pyproject), "settings": persisted_settings(config),
        "until": [spec.text for spec in session.settings.until]})


def stop_settings(config: Config, hook: HookRecord, data: SessionState) -> SessionSettings:
    """A stop's settings: the configuration frozen at ``start``, whatever the agent edited
    since (``[tool.ralph-verify]``, the settings in ``.ralph/state.json``; the integrity
    check reports the edits), and the limit ``start`` recorded."""
    options: dict[str, Any] = dict(data.settings)
    until = list(data.until)
    file_settings = check_options = None
    if hook.frozen_config is not None:  # else a loop started by an older version
        try:
            frozen = thaw(hook.frozen_config)
            table = frozen["table"]
            options = dict(frozen["settings"])
            until = [str(text) for text in frozen["until"]]
        except (FrozenError, KeyError, TypeError) as exc:
            log(config.root, "stop", f"using the current configuration: {exc}")
        else:
            file_settings = validate_settings(table, config.parser.settings, config.pyproject)
            check_options = validate_checks(table.get("checks", {}), registry_of(config),
                                            config.pyproject)
    if data.max_iterations:
        options["max_iterations"] = int(data.max_iterations)
    return settings_for(config, options=options, resume=True, task=data.task or "",
                        until=stored_specs(config, until, source="the loop's until")
                        if until else None,
                        file_settings=file_settings, check_options=check_options)


def until_text(specs: list[CheckSpec]) -> str:
    return ",".join(spec.text for spec in specs)


def start_message(session: Session, specs: list[Any], feedback: str,
                  resumed_at: int | None = None) -> str:
    """What the agent reads when the loop starts or resumes (the slash command shows it)."""
    cap = block_cap()
    how = "started" if resumed_at is None else "resumed"
    at = "" if resumed_at is None else f" at iteration {resumed_at}"
    lines = [f"ralph-verify loop {how} (session {session.id}){at}: until "
             f"{until_text(specs)}, at most {session.max_iterations} iterations."]
    if resumed_at is None:
        lines.append("Each time you finish a turn, the checks run. While they fail, you get "
                     "their feedback and go on; when they all pass, you may stop.")
    lines += [RULES, *(["", "Task:", session.task] if session.task else []), "", feedback]
    agent = session.config.get("agent_name")
    if resumed_at is None and session.max_iterations > cap and agent in (None, "claude") \
            and not _cap_raised(session):
        lines += ["", f"Note: Claude Code ends a turn after {cap} Stop-hook blocks in a row "
                      f"without a tool call ({CAP_ENV}); 'ralph-verify init claude' raises it."]
    return "\n".join(lines)


def _cap_raised(session: Session) -> bool:
    """Is Claude Code's block cap set, here or in the project's settings (``init claude``)?"""
    if os.environ.get(CAP_ENV):
        return True
    with contextlib.suppress(OSError, ValueError, AttributeError):
        settings = json.loads((session.root / ".claude" / "settings.json").read_text("utf-8"))
        return bool(settings.get("env", {}).get(CAP_ENV))
    return False


def write_state(state: StateDir, session: Session, hook: HookRecord, *, phase: str,
                verdict: VerdictProposal | None = None, error: str | None = None) -> None:
    started = epoch(session.started_at)
    record = state_record(session, session.config, phase=phase, verdict=verdict, error=error,
                          elapsed_s=max(0.0, time.time() - started) if started else 0.0)
    record.mode = MODE
    record.agent = f"{hook.agent or 'agent'} (Stop hook)"
    record.hook = hook
    state.write_state(record)
    binding.keep_state(state.root, state.state_path)


def epoch(stamp: str) -> float | None:
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except (TypeError, ValueError):
        return None


def write_snapshot(state: StateDir, snap: Any) -> None:
    data = {path: [e.size, e.mtime_ns, e.digest] for path, e in snap.items()}
    state.write_text(state.path / SNAPSHOT_FILE, json.dumps(data))


def load_snapshot(state: StateDir) -> Any:
    try:
        data = json.loads((state.path / SNAPSHOT_FILE).read_text(encoding="utf-8"))
        return {path: Entry(int(v[0]), int(v[1]), str(v[2])) for path, v in data.items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError):
        return None


def waiting_condition(data: SessionState) -> str:
    """``status`` of a hook-mode loop between two Stop hook calls."""
    hook = data.hook or HookRecord()
    agent = hook.agent or "the agent"
    who = (f"session {hook.session_id}" if hook.session_id
           else "no agent session bound yet: the first Stop hook call binds it")
    text = f"driven by {agent}'s Stop hook ({who}); {data.phase}"
    if hook.note:
        text += f"; note: {hook.note}"
    return text + "; 'ralph-verify cancel' ends it"


# --- cancel ----------------------------------------------------------------------------------


def cancel_hook_session(root: Path) -> str | None:
    """``ralph-verify cancel`` of a hook-mode loop: finish it now; ``None`` if there is none."""
    state = StateDir(root)
    binding.restore_state(root, state.state_path)  # an agent's edit does not hide the loop
    data = state.read_state()
    if data is None or data.mode != MODE or data.finished:
        return None
    data.status = data.phase = "finished"
    data.verdict = VerdictRecord("cancelled", "cancelled by 'ralph-verify cancel'", "core")
    state.write_state(data)
    binding.keep_state(root, state.state_path)
    state.append_progress(f"## Cancelled ({now_iso()})\n\n- verdict: cancelled — by "
                          "'ralph-verify cancel'\n\n")
    hook = data.hook or HookRecord()
    if hook.tasks is not None:  # start --tasks: the list ends with its current task
        _cancel_task_list(root)
    who = hook.session_id or "no session bound yet"
    return (f"cancelled the {hook.agent or 'agent'} Stop-hook loop {data.session} "
            f"({who}) at iteration {data.iteration}; the agent may stop now")


def _cancel_task_list(root: Path) -> None:
    from ralph_verify.loop.task_steps import trusted

    tasks = trusted(root)
    if tasks is None or tasks.verdict is not None:
        return
    if tasks.current is not None:
        tasks.set(tasks.current, "todo", "cancelled by 'ralph-verify cancel'; 'ralph-verify "
                                         "start --resume' goes on")
    tasks.verdict = "cancelled"
    tasks.save()
    tasks.log({"event": "end", "verdict": "cancelled", "reason": "ralph-verify cancel"})
