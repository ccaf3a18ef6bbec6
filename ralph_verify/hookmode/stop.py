"""Hook mode: each call of the agent's own Stop hook is one iteration of the loop ``start``
recorded: verify, record, ask the policies, then block the stop with the feedback or let the
agent stop. Only the bound agent session (:mod:`~ralph_verify.hookmode.binding`) is driven."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.agents import AgentResult
from ralph_verify.checks.registry import build_checks
from ralph_verify.checks.verification import REUSE_KEY, Reuse, abandon_running
from ralph_verify.config.parser import replace_options
from ralph_verify.errors import UsageError
from ralph_verify.hookmode import binding
from ralph_verify.hookmode.copilot import COPILOT_BLOCK_CAP
from ralph_verify.hookmode.install import CAP_ENV
from ralph_verify.hookmode.protocol import emit, log
from ralph_verify.hookmode.session import (
    MODE,
    WAITING,
    block_cap,
    budget_s,
    epoch,
    load_snapshot,
    loop_specs,
    stop_settings,
    write_snapshot,
    write_state,
)
from ralph_verify.loop import cancel_key
from ralph_verify.loop.cycle import Driver
from ralph_verify.loop.cycle import start as start_driving
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.loop.prompt import RULES
from ralph_verify.loop.records import restore_session
from ralph_verify.loop.session import Iteration
from ralph_verify.loop.state import StateDir
from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.proc import info
from ralph_verify.project import git, snapshot
from ralph_verify.records.files import CorruptFile
from ralph_verify.records.session import CapMark, HookRecord, SessionState
from ralph_verify.state_files import now_iso

if TYPE_CHECKING:
    from ralph_verify.agents import AgentRequest, AgentResult
    from ralph_verify.checks.api import Check
    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.state import StateDir
    from ralph_verify.loop.verdict import VerdictProposal


# --- the Stop hook ---------------------------------------------------------------------------


def stop_hook(config: Config, payload: dict[str, Any], agent: str) -> int:
    """One Stop hook call: act only for the bound session of an active hook-mode loop."""
    state = StateDir(config.root)
    tampered = binding.restore_state(config.root, state.state_path)
    if tampered is not None:
        log(config.root, f"{agent}-stop", f"{tampered} ({binding.here()})")
    try:
        data = state.read_state()
    except CorruptFile as exc:
        if exc.mode in (None, MODE):
            raise  # a hook-mode loop's, broken: the agent may stop, and is told why
        # A later run's (a live hook-mode loop's was put back just above): not ours to drive.
        log(config.root, f"{agent}-stop", f"no hook-mode loop to drive: {exc}")
        return 0
    if data is None or data.mode != MODE or data.finished:
        return 0
    hook = data.hook or HookRecord()
    if hook.agent not in (None, agent):
        return 0
    admitted, how = binding.admit(config.root, data.session, payload, hook.session_id)
    if admitted == "other":
        return 0
    if admitted == "refused":
        log(config.root, f"{agent}-stop", f"refused a stop of session "
            f"{payload.get('session_id')!r} ({binding.here()}): {how}")
        emit({"systemMessage": binding.REFUSED.format(why=how)})
        return 0
    if how == "bound":
        hook.bound_by = "first Stop hook call"
    hook.session_id, hook.agent = str(payload.get("session_id")), agent
    try:
        state.acquire_lock(data.session)
    except UsageError as exc:
        log(config.root, f"{agent}-stop", f"not verifying, letting the agent stop: {exc}")
        emit({"systemMessage": f"ralph-verify: {exc}; letting the agent stop"})
        return 0
    # The agent's clock started when it spawned this process, not here.
    spawned = time.monotonic() - info.age()
    deadline = spawned + budget_s(config)
    # The last moment before the agent kills the hook itself (hook-timeout).
    last_moment = spawned + max(budget_s(config) + 1, float(config.get("hook_timeout")) - 2)
    watchdog = threading.Timer(max(0.0, last_moment - time.monotonic()), _expired,
                               (config.root, agent))
    watchdog.daemon = True
    watchdog.start()
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the answer is the only output
            answer = _iterate(config, state, data, hook, payload, deadline)
    finally:
        watchdog.cancel()
        state.release_lock()
    if answer is not None and tampered is not None:
        key = "reason" if "reason" in answer else "systemMessage"
        answer[key] = f"ralph-verify: {tampered}.\n\n{answer.get(key) or ''}".rstrip()
    if answer is not None:
        emit(answer)
    return 0


def _expired(root: Path, agent: str) -> None:
    """Last resort: the checks ignored their timeouts. Let the agent stop, now: the answer
    first (it must be out before the agent's own timeout), then what the verification
    started and made goes (``os._exit`` runs no ``finally``)."""
    log(root, f"{agent}-stop", "the hook's time budget ran out; letting the agent stop")
    with contextlib.suppress(Exception):
        sys.__stdout__.write(json.dumps({  # type: ignore[union-attr]  # None only without a console
            "systemMessage": "ralph-verify: the checks took longer than the hook's time "
                             "budget (hook-timeout); letting the agent stop. See .ralph/hook.log"})
            + "\n")
        sys.__stdout__.flush()  # type: ignore[union-attr]  # as above
    StateDir(root).release_lock()
    abandon_running()
    os._exit(0)


class _AgentTurn:
    """The agent's turn, over when its Stop hook runs: its "run" is what the hook was told
    (``last_assistant_message``), so ``ralph_run_agent`` and its wrappers see it as in ``run``."""

    def __init__(self, state: StateDir, name: str, payload: dict[str, Any], since: float) -> None:
        self.state = state
        self.name = name
        # Gemini CLI's AfterAgent hook calls the final text prompt_response.
        self.text = str(payload.get("last_assistant_message") or payload.get("prompt_response")
                        or "")
        self.session_id = str(payload.get("session_id") or "")
        self.since = since
        self.transcript = str(payload.get("transcript_path") or "")

    def run(self, request: AgentRequest) -> AgentResult:
        from ralph_verify.agents.vetting import read_refusal, refusal_text
        from ralph_verify.hookmode.install import HOOK_MODE

        self.state.write_text(request.log_path, self.text)
        found = read_refusal(self.name, Path(self.transcript), self.since - 1) \
            if self.transcript else None
        refused = refusal_text(self.name, found, f"start {self.name} as 'ralph-verify init "
                               f"{self.name}' prints: {HOOK_MODE[self.name][1]}") \
            if found else None
        return AgentResult(exit_code=0, duration_s=max(0.0, time.time() - self.since),
                           text=self.text, session_id=self.session_id, refused=refused)


class _StopDriver(Driver):
    """One iteration per Stop hook call, its time bounded by the hook's (cycle.py runs it)."""

    mode = MODE
    iterations_per_call = 1

    def __init__(self, config: Config, state: StateDir, hook: HookRecord,
                 agent: _AgentTurn, deadline: float) -> None:
        super().__init__(state, agent)
        self.config = config
        self.hook = hook
        self.deadline = deadline
        self.timed_out = False
        self._before_taken = False
        self._after: Any = None

    def prompt(self, session: Session, iteration: Iteration) -> str:
        """What the agent read: the start message, or the reason the last stop was blocked."""
        assert iteration.prompt_path is not None
        with contextlib.suppress(OSError):
            return iteration.prompt_path.read_text(encoding="utf-8")
        return ""

    def snapshot(self, previous: Any) -> Any:
        """The tree at the last stop (saved then), then the tree now (saved for the next
        once this iteration is recorded: a stop killed before that leaves the last one's,
        so the next stop still sees this turn's changes)."""
        if not self._before_taken:
            self._before_taken = True
            return load_snapshot(self.state)
        root = self.config.root
        self._after = snapshot.take(root, previous, use_git=git.is_repo(root))
        return self._after

    def record(self, iteration: Iteration) -> None:
        super().record(iteration)
        if self._after is not None:
            write_snapshot(self.state, self._after)

    def checks(self) -> list[Check]:
        assert self.session is not None
        return _clamped(build_checks(self.session.config, loop_specs(self.session)),
                        self.deadline)

    def out_of_time(self, iteration: Iteration) -> bool:
        if time.monotonic() < self.deadline:
            return False
        self.timed_out = True
        log(self.config.root, f"{self.hook.agent}-stop",
            f"iteration {iteration.number}: the checks took {iteration.duration_s:.0f}s, over "
            "the hook's time budget; letting the agent stop")
        self.hook.note = "the checks ran out of the hook's time budget (raise hook-timeout)"
        return True


def _iterate(config: Config, state: StateDir, data: SessionState, hook: HookRecord,
             payload: dict[str, Any], deadline: float) -> dict[str, Any] | None:
    """One iteration (cycle.py, as ``run``'s), then the hook's answer: block the stop with
    the feedback, or let the agent stop (``None``: no output)."""
    agent = str(hook.agent)
    session, number = restore_session(config, state, data, stop_settings(config, hook, data))
    config = session.config
    if not payload.get("stop_hook_active"):  # a new turn: the harness counts afresh too
        hook.blocks_in_a_row = 0
        hook.note = ""
        hook.block_cap_reached = None
    config.stash[SESSION_KEY] = session
    if hook.tasks is not None:  # start --tasks: the commit completing a task is named after it
        from ralph_verify.hookmode.task_list import name_task_commit  # pydantic: a list only

        name_task_commit(config, hook)
        # This Stop's verification may answer the next task's gate (one suite run a switch).
        config.stash[REUSE_KEY] = Reuse()
    if state.cancel_path.exists() and not cancel_key.genuine(config.root, state.cancel_path):
        state.cancel_path.unlink(missing_ok=True)  # the agent's own: not a cancel
        state.append_progress(f"- {cancel_key.FORGED}\n")
    if state.cancel_path.exists():
        state.cancel_path.unlink(missing_ok=True)
        verdict = VerdictProposal(Verdict.CANCELLED, "cancelled by 'ralph-verify cancel'",
                                  source="core")
        return _over(config, state, session, hook, verdict)

    last_stop = epoch(hook.last_stop_at or session.started_at) or time.time()
    driver = _StopDriver(config, state, hook, _AgentTurn(state, agent, payload, last_stop),
                         deadline)
    start_driving(session, driver)
    verdict = config.hook.ralph_runloop(session=session, first=number)
    iteration = session.last
    if driver.timed_out:  # no verdict was asked: the next stop goes on (or ends at the limit)
        assert iteration is not None
        write_state(state, session, hook, phase=WAITING)
        return {"systemMessage": f"ralph-verify iteration {iteration.number}: the checks took "
                                 "longer than the hook's time budget (hook-timeout); letting "
                                 "the agent stop. See .ralph/hook.log"}
    hook.last_stop_at = now_iso()
    if verdict is not None:  # the session is over; a task list goes on with its next task
        return _over(config, state, session, hook, verdict)
    assert iteration is not None and iteration.verification is not None
    verification = iteration.verification
    number = iteration.number
    reason = block_reason(config, session, iteration, verification)
    state.write_text(state.iteration_dir(number + 1) / "prompt.md", reason)
    hook.blocks_in_a_row += 1
    hook.last_decision = "block"
    failing = sum(1 for r in verification.results if not r.passed)
    message = (f"ralph-verify iteration {number}/{session.max_iterations}: {failing} "
               f"check{'s' if failing != 1 else ''} failing")
    if iteration.agent is not None and iteration.agent.refused:
        message += f". WARNING: {iteration.agent.refused}"
    # A cap reached is marked in the state: 'status --watch' says the loop may not move itself.
    cap, hook.block_cap_reached = block_cap(), None
    if agent == "copilot" and hook.blocks_in_a_row > COPILOT_BLOCK_CAP:
        # Copilot honours 8 blocks in a row and ignores the 9th, tool calls or not.
        hook.note = (f"Copilot CLI ends a turn after {COPILOT_BLOCK_CAP} blocked stops in a "
                     "row (no setting raises it): it ignores this block, and the loop waits "
                     f"at iteration {number}/{session.max_iterations}: send any message "
                     "(or 'copilot --resume') to go on")
        hook.block_cap_reached = CapMark(COPILOT_BLOCK_CAP, number, now_iso())
    elif agent == "claude" and hook.blocks_in_a_row >= cap:
        hook.note = (f"Claude Code ends a turn after {cap} Stop-hook blocks in a row without "
                     f"a tool call ({CAP_ENV}={cap}); if it stopped, the loop waits at "
                     f"iteration {number}/{session.max_iterations}: send any message to go "
                     "on, or run 'ralph-verify init claude' to raise the cap")
        hook.block_cap_reached = CapMark(cap, number, now_iso())
    if hook.block_cap_reached is not None:
        message += f". {hook.note}"
    write_state(state, session, hook, phase=WAITING)
    return {"decision": "block", "reason": reason, "systemMessage": message}


def _over(config: Config, state: StateDir, session: Session, hook: HookRecord,
          verdict: VerdictProposal) -> dict[str, Any]:
    """The session ended at this stop; under ``start --tasks`` the list goes on."""
    answer = _finish(config, state, session, hook, verdict)
    if hook.tasks is None:
        return answer
    from ralph_verify.hookmode.task_list import after_session

    return after_session(config, state, session, hook, verdict, answer)


def _clamped(checks: list[Check], deadline: float) -> list[Check]:
    """Every check's tool is killed before the hook's budget runs out."""
    left = max(1.0, deadline - time.monotonic())
    for check in checks:
        if check.timeout > left:
            check.options = replace_options(check.options, timeout=left)
    return checks


def block_reason(config: Config, session: Session, iteration: Iteration,
                 verification: Verification) -> str:
    """The text the agent reads when its stop is blocked: feedback, notes, the rules."""
    upcoming = Iteration(number=iteration.number + 1)
    notes = [n for n in config.hook.ralph_prompt_notes(session=session, iteration=upcoming) if n]
    parts = [f"ralph-verify: iteration {iteration.number} of {session.max_iterations} is not "
             "done, because these checks fail. Fix them, then finish your turn: the checks run "
             "again each time you stop.", verification.feedback, *notes, RULES]
    return "\n\n".join(part for part in parts if part)


def _finish(config: Config, state: StateDir, session: Session, hook: HookRecord,
            verdict: VerdictProposal) -> dict[str, Any]:
    hook.last_decision = "stop"
    hook.block_cap_reached = None
    last = session.last
    if last is not None and last.verdict is None:
        last.verdict = verdict
    write_state(state, session, hook, phase="finished", verdict=verdict)
    state.append_progress(f"## Verdict ({now_iso()})\n\n- {verdict.verdict.value} — "
                          f"{verdict.reason}\n\n")
    config.hook.ralph_session_finish(session=session, verdict=verdict)
    number = session.last.number if session.last is not None else 0
    return {"systemMessage": f"ralph-verify: {verdict.verdict.value} after {number} "
                             f"iteration{'s' if number != 1 else ''} — {verdict.reason}"}
