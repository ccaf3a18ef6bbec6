"""``ralph-verify start --resume``: a stopped hook-mode loop (one task or a task list) goes on
in its own session, as ``run --resume``, with what its start froze; only the budgets may grow."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ralph_verify.config.until import parse_spec
from ralph_verify.errors import UsageError
from ralph_verify.hookmode import binding
from ralph_verify.hookmode.session import (
    MODE,
    WAITING,
    Opened,
    bind,
    fresh_hook,
    loop_specs,
    start_message,
    starting,
    stop_settings,
    write_state,
)
from ralph_verify.hookmode.task_list import HookTaskList
from ralph_verify.loop.frozen import FrozenError, refreeze, thaw
from ralph_verify.loop.opening import open_session
from ralph_verify.loop.records import persisted_settings, restore_session, resumable
from ralph_verify.loop.state import StateDir
from ralph_verify.loop.task_steps import trusted
from ralph_verify.records.codec import decode
from ralph_verify.records.session import HookRecord, SessionState
from ralph_verify.state_files import now_iso
from ralph_verify.tasks.model import TaskList
from ralph_verify.tasks.order import DONE
from ralph_verify.tasks.prompt import is_task_text

if TYPE_CHECKING:
    from ralph_verify.config import Config


#: What ``start --resume`` may change: the budgets. The checks, the task (or list), the
#: settings and the frozen tests stay as the session's start fixed them.
BUDGETS = ("max_iterations", "max_time")


def resume_loop(config: Config) -> int:
    """``start --resume``: the project's last hook-mode loop, stopped (a budget, the
    iteration limit, a cancel, the agent blocked), goes on as it was (one task, or the task of
    a list whose loop it was), with more of a budget if the command line gives it."""
    state = StateDir(config.root)
    binding.restore_state(config.root, state.state_path, finished=True)
    previous = resumable(state, MODE)
    if not previous.finished:
        raise UsageError(f"session {previous.session} is still active ({previous.phase}): "
                         "the agent's next stop goes on with it; 'ralph-verify cancel' ends it")
    if previous.error:
        raise UsageError(f"nothing to resume: session {previous.session} ended with an error "
                         f"({previous.error}); 'ralph-verify start' starts a new loop")
    fixed = [f"--{dest.replace('_', '-')}" for dest in persisted_settings(config)
             if dest not in BUDGETS]
    fixed += ["--until"] * (config.source_of("until") == "command line")
    fixed += ["TASK"] * bool(config.get("start_task"))
    if fixed:
        raise UsageError(f"start --resume cannot change {', '.join(fixed)}: the session keeps "
                         "the checks, task (or task list), settings and tests of its start; only "
                         "--max-iterations and --max-time may be given")
    hook = previous.hook or HookRecord()
    if config.get("tasks") and hook.tasks is None:
        raise UsageError(f"session {previous.session} is one task, not a task list: "
                         "'ralph-verify start --resume' (without --tasks) continues it")
    with starting(state, previous.session):
        resumed_hook = fresh_hook(config)
        resumed_hook.agent = resumed_hook.agent or hook.agent
        resumed_hook.frozen_config, resumed_hook.tasks = hook.frozen_config, hook.tasks
        bind(config, previous.session)
        if hook.tasks is not None:
            opened = resume_task_list(config, state, previous, resumed_hook)
        else:
            opened = reopen(config, state, previous, resumed_hook)
    print(opened.message)
    return opened.code


def budgets(config: Config) -> dict[str, Any]:
    """The budgets the command line gives ``start --resume``."""
    return {dest: config.get(dest) for dest in BUDGETS if config.source_of(dest) == "command line"}


def resumed_config(config: Config, previous: SessionState, hook: HookRecord) -> Any:
    """The session's configuration frozen at its start, with the new budgets (its limit set
    in ``previous``); a usage error, before anything is written, when it cannot be read or no
    iteration is left."""
    try:
        frozen = thaw(hook.frozen_config)
        frozen["settings"].update(budgets(config))
    except (FrozenError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"cannot resume session {previous.session}: its frozen configuration "
                         f"cannot be read ({exc}); 'ralph-verify start' starts a new loop") \
            from None
    previous.max_iterations = int(frozen["settings"].get("max_iterations")
                                  or previous.max_iterations)
    if previous.iteration >= previous.max_iterations:
        raise UsageError(f"session {previous.session} used its {previous.max_iterations} "
                         "iterations; give more with --max-iterations N to go on")
    return frozen


def reopen(config: Config, state: StateDir, previous: SessionState, hook: HookRecord) -> Opened:
    """Open the stopped session of ``previous`` again as ``run --resume`` does (restored from
    its records, no new baseline, the same recovery point and branch), with its configuration
    frozen at the start and the new budgets; it waits for the agent's next stop."""
    frozen = resumed_config(config, previous, hook)
    assert hook.frozen_config is not None
    hook.frozen_config = refreeze(hook.frozen_config, frozen)
    session, number = restore_session(config, state, previous,
                                      stop_settings(config, hook, previous))
    session.mode = MODE
    open_session(session, state, (), fresh=False, tool_output=sys.stderr)
    last = session.previous_verification()
    message = start_message(session, loop_specs(session), last.feedback if last else "", number)
    state.write_text(state.iteration_dir(number) / "prompt.md", message)
    write_state(state, session, hook, phase=WAITING)
    state.append_progress(f"## Resumed ({now_iso()})\n\n- at iteration {number}, at most "
                          f"{session.max_iterations}\n\n")
    return Opened("waiting", 0, message)


def resume_task_list(config: Config, statedir: StateDir, previous: SessionState,
                     hook: HookRecord) -> Opened:
    """``start --resume`` of a list: its state as ralph-verify wrote it (checked against its
    own copy and the verified commits, as under ``run --tasks --resume``). The task whose
    session stopped goes on in that session (what was skipped because of it is ``todo``
    again); after a task that ended done, the list goes on with its next task."""
    record = hook.tasks
    assert record is not None
    try:
        frozen = thaw(record.frozen)
        task_list = decode(TaskList, frozen["list"])
        frozen["settings"].update(budgets(config))
        extra = [parse_spec(text) for text in frozen["extra"]]
    except (FrozenError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UsageError(f"cannot resume the task list: its frozen copy cannot be read "
                         f"({exc}); 'ralph-verify start --tasks FILE' starts it again") from None
    state = trusted(config.root, task_list)
    if state is None:
        raise UsageError("nothing to resume: the task list's state (.ralph/tasks/state.json) "
                         "is gone; 'ralph-verify start --tasks FILE' starts it again")
    if state.verdict == "complete":
        raise UsageError(f"the task list {task_list.path.name} is already complete; "
                         "'ralph-verify start --tasks FILE' starts it again")
    row = next((row for row in state.tasks if is_task_text(previous.task or "", row.id)),
               None)
    going_on = previous.verdict_name != "complete" and row is not None and \
        row.status not in DONE
    if going_on:
        resumed_config(config, previous, hook)  # its errors before anything is written
    hook.tasks = replace(record, frozen=refreeze(record.frozen, frozen), failed_in_a_row=0)
    state.verdict = None
    if going_on:
        assert row is not None
        state.set(row.id, "running", "resumed ('ralph-verify start --resume')")
        for other in state.tasks:
            if other.status == "skipped" and other.reason.startswith(f"depends on {row.id}, "):
                state.set(other.id, "todo")
        opened = reopen(config, statedir, previous, hook)
        return replace(opened, message=f"ralph-verify: task list {task_list.path.name}: "
                                       f"task {row.id} goes on\n{opened.message}")
    view = stop_settings(config, hook, previous).config_for(config)
    runner = HookTaskList(view, task_list, statedir, hook, dict(frozen["settings"]), state)
    runner.extra, runner.sessions = extra, 1
    result, waiting = runner.go()
    if waiting is not None:
        return Opened("waiting", 0, f"ralph-verify: task list {task_list.path.name}: task "
                                    f"{waiting.task.id} next\n{waiting.message}")
    assert result is not None
    return Opened("ended", result.exit_code, f"task list: {result.verdict}: {result.reason}"
                  + ("" if result.exit_code == 0 else
                     "; 'ralph-verify tasks retry ID' makes a failed task todo again"))
