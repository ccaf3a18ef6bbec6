"""What a session records and shows: state.json, history lines, progress entries,
terminal lines, and rebuilding a session from them for ``run --resume``."""

from __future__ import annotations

import copy
import os
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import CheckResult, Status
from ralph_verify.checks.tool_output import one_line
from ralph_verify.display import duration, tally
from ralph_verify.errors import UsageError
from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.records.session import (
    AgentRecord,
    CheckSummary,
    IterationRecord,
    SessionState,
    SettingValue,
    UnavailableRecord,
    VerdictRecord,
)

if TYPE_CHECKING:
    from ralph_verify.agents import AgentResult
    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.settings import SessionSettings
    from ralph_verify.loop.state import StateDir

#: Settings never carried over to ``--resume``.
_NOT_PERSISTED = {"resume", "until"}


# --- the task and the settings ---------------------------------------------------------------


def persisted_settings(config: Config) -> dict[str, SettingValue]:
    """Settings given on the command line (or restored from it), so ``--resume`` runs with
    the same ones."""
    found: dict[str, SettingValue] = {}
    for setting in config.parser.settings.values():
        if setting.dest in _NOT_PERSISTED:
            continue
        if config.source_of(setting.dest) in ("command line", "session"):
            value = config.get(setting.dest)
            if isinstance(value, (str, int, float, bool, list)):
                found[setting.dest] = value
    return found


#: The command that starts each kind of session, and whose ``--resume`` continues it.
_STARTED_BY = {"run": "ralph-verify run", "hook": "ralph-verify start"}


def resumable(state: StateDir, mode: str) -> SessionState:
    """The session of ``.ralph/state.json`` that ``--resume`` of ``mode`` (``run``, or hook
    mode's ``hook``) continues; else a usage error that says why there is none."""
    previous = state.read_state()
    command = _STARTED_BY[mode]
    if previous is None:
        raise UsageError(f"nothing to resume: no session in {state.root} (.ralph/state.json "
                         f"not found); '{command}' starts one")
    kind = previous.mode if previous.mode in _STARTED_BY else "run"
    if kind != mode:
        raise UsageError(f"session {previous.session} was started by '{_STARTED_BY[kind]}', "
                         f"not '{command}': '{_STARTED_BY[kind]} --resume' continues it")
    if previous.verdict_name == Verdict.COMPLETE.value:
        raise UsageError(f"session {previous.session} is already complete; '{command}' "
                         "without --resume starts a new one")
    return previous


def restore_session(config: Config, state: StateDir, previous: SessionState,
                    settings: SessionSettings) -> tuple[Session, int]:
    """The interrupted session of ``state.json``, with ``settings``
    (:func:`ralph_verify.loop.settings.resumed`), ready to go on at its next iteration."""
    from ralph_verify.loop.session import Session  # a loop's; check's terminal lines need none

    baseline = state.read_verification(0)
    if baseline is None:
        raise UsageError("nothing to resume: the session has no baseline "
                         f"({state.iteration_dir(0)}/verification.json); start a new run")
    iterations = [_iteration_from_record(record, state) for record in state.read_history()]
    session = Session(id=previous.session, root=config.root, dir=state.path,
                      config=settings.config_for(config), settings=settings,
                      baseline=baseline, iterations=iterations,
                      started_at=previous.started_at,
                      plugin_state=dict(previous.plugin_state), resumed=True,
                      elapsed_before_s=previous.elapsed_s)
    return session, max((it.number for it in iterations), default=0) + 1


def _iteration_from_record(record: IterationRecord, state: StateDir) -> Iteration:
    from ralph_verify.agents import AgentResult  # a session resumed: a loop, not check
    from ralph_verify.loop.session import Iteration

    number, agent, result = record.iteration, record.agent, None
    if agent is not None:  # the record's fields are the result's (its turn-away is not kept)
        kept = {name: value for name, value in vars(agent).items() if name != "unavailable"}
        result = AgentResult(**{
            **kept, "exit_code": -1 if agent.exit_code is None else agent.exit_code,
            "duration_s": agent.duration_s or 0.0, "survivors": list(agent.survivors)})
    return Iteration(number=number, prompt_path=state.iteration_dir(number) / "prompt.md",
                     agent=result, verification=state.read_verification(number),
                     files_changed=list(record.files_changed),
                     started_at=record.started_at, duration_s=record.duration_s,
                     promises=list(record.promises), commit=record.commit)


# --- records ---------------------------------------------------------------------------------


def verdict_record(verdict: VerdictProposal | None) -> VerdictRecord | None:
    if verdict is None:
        return None
    return VerdictRecord(verdict.verdict.value, verdict.reason, verdict.source)


def check_summary(result: CheckResult) -> CheckSummary:
    return CheckSummary(
        name=result.name, spec=result.spec, status=result.status.value,
        summary=result.summary, metric=result.metric, counts=dict(result.counts),
        failures=len(result.failures),
        pre_existing=sum(1 for f in result.failures if f.pre_existing),
        fingerprints=sorted({f.fingerprint for f in result.failures}))


def agent_record(result: AgentResult | None) -> AgentRecord | None:
    """The result's fields the history keeps (the record's are the result's)."""
    if result is None:
        return None
    away = result.unavailable
    kept = {f.name: getattr(result, f.name) for f in fields(AgentRecord)}
    return AgentRecord(**{
        **kept, "duration_s": round(result.duration_s, 3), "waited_s": round(result.waited_s, 3),
        "survivors": list(result.survivors), "unavailable": None if away is None
        else UnavailableRecord(away.kind, away.message, away.retry_after_s)})


def iteration_record(iteration: Iteration, session: Session) -> IterationRecord:
    """One line of history.jsonl."""
    verification = iteration.verification
    prompt = (os.path.relpath(iteration.prompt_path, session.root)
              if iteration.prompt_path is not None else None)
    return IterationRecord(
        iteration=iteration.number,
        started_at=iteration.started_at,
        duration_s=round(iteration.duration_s, 3),
        prompt=prompt,
        agent=agent_record(iteration.agent),
        files_changed=list(iteration.files_changed),
        promises=list(iteration.promises),
        passed=verification.passed if verification is not None else None,
        checks=[check_summary(r) for r in verification.results] if verification else [],
        commit=iteration.commit,
        verdict=verdict_record(iteration.verdict),
        plugin_state=copy.deepcopy(session.plugin_state),
    )


def state_record(session: Session, config: Config, *, phase: str,
                 verdict: VerdictProposal | None, error: str | None,
                 elapsed_s: float) -> SessionState:
    """The content of state.json."""
    last = session.previous_verification()
    number = session.last.number if session.last is not None else 0
    return SessionState(
        session=session.id,
        pid=os.getpid(),
        root=str(session.root),
        status="finished" if phase == "finished" else "running",
        phase=phase,
        started_at=session.started_at,
        elapsed_s=round(elapsed_s, 3),
        iteration=number,
        max_iterations=session.max_iterations,
        agent=config.get("agent"),
        until=[spec.text for spec in session.settings.until],
        task=session.task,
        settings=persisted_settings(config),
        passed=last.passed if last is not None else None,
        checks=[check_summary(r) for r in last.results] if last is not None else [],
        verdict=verdict_record(verdict),
        error=error,
        log_dir=os.path.relpath(session.dir / "iterations" / f"{number:03d}", session.root),
        plugin_state=session.plugin_state,
        mode=session.mode,
    )


def progress_entry(iteration: Iteration) -> str:
    """The iteration's section of progress.md."""
    from ralph_verify.loop.prompt import iteration_line

    lines = [f"## Iteration {iteration.number} ({iteration.started_at}, "
             f"{duration(iteration.duration_s)})", "", f"- {iteration_line(iteration)}"]
    if iteration.agent is not None:
        lines.append(f"- agent: {agent_text(iteration.agent)}")
    if iteration.promises:
        lines.append(f"- promised: {', '.join(iteration.promises)}")
    if iteration.verification is not None:
        for result in iteration.verification.results:
            summary = " ".join(result.summary.split())
            lines.append(f"- {result.spec}: {result.status.value} — {summary}")
    if iteration.verdict is not None:
        lines.append(f"- verdict: {iteration.verdict.verdict.value} — {iteration.verdict.reason}")
    return "\n".join(lines) + "\n\n"


# --- terminal lines --------------------------------------------------------------------------


def header(session: Session, config: Config) -> str:
    agent = config.get("agent") or "(object)"
    until = ",".join(spec.text for spec in session.settings.until)
    text = (f"ralph-verify run · session {session.id} · agent {agent} · until {until} · "
            f"up to {session.max_iterations} iteration{'s' if session.max_iterations != 1 else ''}")
    if session.resumed:
        text += f" · resumed after iteration {len(session.iterations)}"
    return text


def passed_text(verification: Verification, noun: str = " checks") -> str:
    """``4/5 checks passed, 1 skipped`` (:func:`~ralph_verify.display.tally`)."""
    return tally([result.status.value for result in verification.results], noun)


def check_brief(result: CheckResult) -> str:
    """``tests 12/15``, ``lint 0``, ``files passed``: for status lines and commit messages."""
    counts = result.counts
    if "passed" in counts and ("failed" in counts or "total" in counts):
        total = counts.get("total") or counts["passed"] + counts.get("failed", 0) \
            + counts.get("errors", 0)
        return f"{result.spec} {counts['passed']}/{total}"
    if result.status is Status.ERROR:
        return f"{result.spec} error"
    if result.metric is not None:
        return f"{result.spec} {result.metric:g}"
    return f"{result.spec} {result.status.value}"


def verification_line(label: str, verification: Verification) -> str:
    text = f"{label}: {passed_text(verification)} ({duration(verification.duration_s)})"
    bad = [f"{r.spec} {r.status.value} — {one_line(r.summary, 120)}"
           for r in verification.results if not r.passed]
    return text + ("".join(f"\n    {line}" for line in bad) if bad else "")


def idle_text(seconds: float) -> str:
    """``idle for 20 minutes``, ``idle for 2 seconds``."""
    if seconds >= 60:
        return f"idle for {seconds / 60:g} minute{'s' if seconds != 60 else ''}"
    return f"idle for {seconds:g} second{'s' if seconds != 1 else ''}"


def agent_text(result: AgentResult) -> str:
    if result.error:
        return f"could not run: {result.error}"
    text = f"exit {result.exit_code} in {duration(result.duration_s)}"
    if result.timed_out:
        text += " (timed out and killed)"
    if result.idle_s is not None:
        text += f" ({idle_text(result.idle_s)}: no output, no file change; killed)"
    if result.retries:
        text += (f" after {result.retries} run{'s' if result.retries != 1 else ''} turned away "
                 f"(rate limit/outage; waited {duration(result.waited_s)})")
    if result.cost_usd is not None:
        text += f", ${result.cost_usd:.2f}"
    if result.survivors:
        text += (f"; {len(result.survivors)} process{'es' if len(result.survivors) != 1 else ''}"
                 f" it started could not be ended: {', '.join(result.survivors)}")
    return text


def agent_line(iteration: Iteration) -> str:
    assert iteration.agent is not None
    files = iteration.files_changed
    text = (f"iteration {iteration.number}: agent {agent_text(iteration.agent)}; "
            f"changed {len(files)} file{'s' if len(files) != 1 else ''}")
    if iteration.promises:
        text += f"; promised {', '.join(iteration.promises)}"
    return text


def summary_lines(session: Session, verdict: VerdictProposal, folder: Path,
                  elapsed: float) -> list[str]:
    last = session.previous_verification()
    checks = f"; checks {passed_text(last, '')}" if last is not None else ""
    logs = os.path.relpath(folder, Path.cwd()) if folder.is_relative_to(Path.cwd()) \
        else str(folder)
    number = session.last.number if session.last is not None else 0
    return [
        "",
        f"verdict: {verdict.verdict.value} — {verdict.reason}",
        f"iterations: {number} of at most {session.max_iterations} in {duration(elapsed)}"
        f"{checks}",
        f"logs: {logs}/ (state.json, history.jsonl, progress.md"
        + (f", iterations/{number:03d}/agent.log)" if number else ")"),
    ]


def describe_plugin_state(config: Config, name: str, value: object) -> str | None:
    """A plugin's one-line account of its saved state, for ``status`` and ``status --watch``:
    the plugin's module-level ``describe(state)`` if it has one (breaker, checkpoint,
    integrity)."""
    method = getattr(config.pluginmanager.get_plugin(name), "describe", None)
    if not callable(method) or not isinstance(value, dict):
        return None
    return str(method(value))
