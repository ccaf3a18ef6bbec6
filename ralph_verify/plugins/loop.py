"""The loop's commands: ``run``, ``status``, ``cancel``, ``rollback``, and ``run``'s options."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from typing import TYPE_CHECKING, Annotated

from ralph_verify import hookimpl
from ralph_verify.config import Config
from ralph_verify.config.parser import Bound, Parser, positive_float, positive_int
from ralph_verify.errors import UsageError
from ralph_verify.exitcode import ExitCode
from ralph_verify.terminal_text import strip_controls
from ralph_verify.tool_output import one_line
from ralph_verify.verdict import EXIT_CODES, PRECEDENCE, Verdict

if TYPE_CHECKING:
    from ralph_verify.iteration import Iteration, Session
    from ralph_verify.verdict import VerdictProposal

DEFAULT_MAX_ITERATIONS = 20
DEFAULT_AGENT_TIMEOUT = 1800.0

_VERDICT_HELP = {
    Verdict.COMPLETE: "every check passes (and a required promise:TEXT was printed then)",
    Verdict.MAX_ITERATIONS: "the iteration limit was reached (--max-iterations)",
    Verdict.STALLED: "the stall breaker opened: same failures, no file changed, no progress",
    Verdict.BLOCKED: "the agent printed <promise>BLOCKED: reason</promise>",
    Verdict.BUDGET: "--max-time or --max-cost was reached",
    Verdict.AGENT_ERROR: "the agent could not run, or failed --max-agent-failures times in a row",
    Verdict.CANCELLED: "Ctrl-C, SIGTERM or 'ralph-verify cancel'",
    Verdict.NOTHING_TO_DO: "the baseline passes only because its failures were there already "
                           "(tests:new): use 'tests' to have them fixed",
}


def run_epilog() -> str:
    """The verdicts and their exit codes, from :mod:`ralph_verify.verdict` itself."""
    lines = ["verdicts and exit codes:"]
    for verdict in sorted(Verdict, key=lambda v: EXIT_CODES[v]):
        lines.append(f"  {EXIT_CODES[verdict]:<4}{verdict.value:<16}{_VERDICT_HELP[verdict]}")
    lines += [
        f"  {ExitCode.USAGE_ERROR:<4}usage error: bad option or config, another run holds the "
        "lock, uncommitted",
        "      changes (see --allow-dirty)",
        f"  {ExitCode.CHECK_ERROR:<4}a check could not decide at baseline (tool missing...): "
        "the agent never ran",
        f"  {ExitCode.INTERNAL_ERROR:<4}internal error in ralph-verify or a plugin (a bug: the "
        "traceback is shown)",
        "when several verdicts apply at once, the first of "
        f"{', '.join(v.value for v in PRECEDENCE)} wins.",
        "",
        "files: .ralph/state.json, history.jsonl, progress.md, iterations/NNN/{prompt.md,"
        "agent.log,verification.json}",
    ]
    return "\n".join(lines)


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "run", run, scopes=("verify", "output", "loop"),
        help="run an agent in a loop until the checks pass",
        description="Iterate: prompt -> agent -> verify -> record -> decide, until every check "
                    "of --until passes or a limit stops the loop.\n\nexamples:\n"
                    "  ralph-verify run --agent cmd:\"python fix.py\" --until tests,lint "
                    "--max-iterations 10 -p PROMPT.md\n"
                    "  ralph-verify run --agent replay:examples/tdd-kata/replay "
                    "--until tests,coverage.min=90\n"
                    "  ralph-verify run --resume",
        epilog=run_epilog(),
    )
    parser.add_command("status", status, help="show the current or last session: iteration, "
                       "checks, breaker, verdict", scopes=("status",))
    parser.add_command("cancel", cancel, scopes=("cancel",),
                       help="stop the session running in this project, cleanly")
    parser.add_command("rollback", rollback, scopes=("rollback",),
                       help="restore the project tree of iteration N of the last session "
                            "(0: as it was at the start) as a new commit")
    parser.addoption("task", scope="loop", nargs="?", metavar="TASK",
                     help="the task as text (or use -p FILE; default: PROMPT.md in the root)")
    parser.addoption("-p", "--prompt", scope="loop", setting="prompt", metavar="FILE",
                     help="file with the task (-p no:NAME still disables plugin NAME)")
    parser.addoption("--agent", scope="loop", setting="agent", metavar="NAME[:ARG]",
                     help="the agent: cmd:COMMAND (prompt on stdin), replay:DIR, or an adapter "
                          "a plugin registers (see 'ralph-verify plugins')")
    parser.addoption("--max-iterations", scope=("loop", "start"), setting="max-iterations",
                     type=positive_int, setting_type=Annotated[int, Bound(ge=1)],
                     default=DEFAULT_MAX_ITERATIONS, metavar="N",
                     help=f"stop after N iterations (default {DEFAULT_MAX_ITERATIONS})")
    parser.addoption("--template", scope="loop", setting="template", metavar="FILE",
                     help="prompt template with {{task}}, {{feedback}}, {{iteration}}, "
                          "{{max_iterations}}, {{progress}}, {{rules}}, {{notes}} "
                          "(default: built in)")
    parser.addoption("--agent-timeout", scope="loop", setting="agent-timeout",
                     type=positive_float, setting_type=Annotated[float, Bound(gt=0)],
                     default=DEFAULT_AGENT_TIMEOUT, metavar="SECONDS",
                     help="seconds one agent run may take before its whole process group is "
                          f"killed (default {DEFAULT_AGENT_TIMEOUT:g}: 30 minutes)")
    parser.addoption("--resume", scope="loop", action="store_true", default=None,
                     help="continue the interrupted session of .ralph/state.json at its next "
                          "iteration, with its settings and plugin state")
    parser.addoption("--agent-arg", scope="loop", setting="agent-arg", action="append",
                     setting_type=list[str], metavar="ARG",
                     help="an extra argument for the agent's command line (repeatable)")
    parser.addoption("--model", scope="loop", setting="model", metavar="NAME",
                     help="the model the agent should use (adapters that support it)")
    parser.addoption("--yolo", scope="loop", setting="yolo", action="store_true", default=False,
                     help="let the agent act without asking permission (adapters that "
                          "support it); use in a sandbox")
    parser.addoption("--continue-session", scope="loop", setting="continue-session",
                     action="store_true", default=False,
                     help="continue the agent's own conversation across iterations (adapters "
                          "that support it)")
    parser.addoption("--wait", scope="cancel", type=float, default=30.0, metavar="SECONDS",
                     help="how long to wait for the run to stop (default 30)")
    parser.addoption("iteration", scope="rollback", type=int, metavar="N",
                     help="the iteration whose tree to restore (0: the session's start)")


@hookimpl
def ralph_configure(config: Config) -> None:
    """``run``'s usage errors (bad specs, no or unreadable task) come before anything runs:
    no lock, no .ralph/, no branch, no baseline."""
    if config.command.name != "run" or config.get("resume"):
        return
    from ralph_verify.records import read_task

    config.until_specs()
    read_task(config)


@hookimpl(trylast=True)
def ralph_runloop(session: Session, first: int) -> VerdictProposal | None:
    """The iterations of a session, the same for ``run`` and the Stop hook (cycle.py)."""
    from ralph_verify.cycle import runloop

    return runloop(session, first)


@hookimpl(trylast=True)
def ralph_run_iteration(session: Session, iteration: Iteration) -> bool:
    from ralph_verify.cycle import run_iteration

    run_iteration(session, iteration)
    return True


def run(config: Config) -> int:
    from ralph_verify.loop import run_session

    return run_session(config)


def status(config: Config) -> int:
    from ralph_verify.display import duration
    from ralph_verify.state import StateDir

    if config.get("watch"):  # --watch: declared by plugins/watch.py
        from ralph_verify.plugins.watch import watch_status

        return watch_status(config)
    state = StateDir(config.root)
    data = state.read_state()
    if data is None:
        print(f"no session in {config.root} (no .ralph/state.json)")
        return 1
    target = config.get("json")  # --json: declared by plugins/json_report.py
    if target == "-":
        print(json.dumps(data, indent=2))
        return 0
    if target:
        from ralph_verify.state_files import write_text_atomic

        write_text_atomic(config.invocation_dir / target, json.dumps(data, indent=2) + "\n")
        return 0
    holder = state.lock_holder()
    if data.get("status") == "finished":
        condition = "finished"
    elif holder is not None and holder.session == data.get("session"):
        condition = f"running (pid {holder.pid}), {data.get('phase')}"
    elif data.get("mode") == "hook":  # driven by the agent's Stop hook (stophook.py)
        from ralph_verify.hookstart import waiting_condition

        condition = waiting_condition(data)
    else:
        condition = "interrupted: go on with 'ralph-verify run --resume'"
        owner = state.read_lock()
        if data.get("status") == "running" and owner is not None \
                and owner.session == data.get("session"):
            condition = (f"dead: the ralph-verify process that ran it (pid {owner.pid}) "
                         f"ended without finishing it (phase {data.get('phase')}); "
                         "'ralph-verify run --resume' continues it")
    print(f"session {data.get('session')} · {condition}")
    print(f"iteration {data.get('iteration')}/{data.get('max_iterations')} · "
          f"elapsed {duration(float(data.get('elapsed_s') or 0))} · agent {data.get('agent')}")
    checks = data.get("checks") or []
    passed = sum(1 for c in checks if c.get("status") in ("passed", "skipped"))
    print(f"checks: {passed}/{len(checks)} passed")
    for check in checks:
        print(f"  {check.get('status', '?').upper():<7} {check.get('spec')}  "
              f"{one_line(str(check.get('summary', '')), 100)}")
    from ralph_verify.records import describe_plugin_state

    for name, value in (data.get("plugin_state") or {}).items():
        described = describe_plugin_state(config, name, value)
        if described is not None:
            print(f"{name}: {described}")
    from ralph_verify.hookrun import refusal_counts

    refused = refusal_counts(config.root)  # the PreToolUse guard's refusals (hookrun.py)
    if refused:
        print(f"guard: {sum(refused.values())} tool calls refused ("
              + ", ".join(f"{rule} {n}" for rule, n in sorted(refused.items())) + ")")
    verdict = data.get("verdict")
    if verdict:
        print(strip_controls(f"verdict: {verdict.get('verdict')} — {verdict.get('reason')}"))
    elif data.get("error"):
        print(strip_controls(f"stopped: {data['error']}"))
    else:
        print("verdict: none yet")
    print(f"logs: {data.get('log_dir')}")
    return 0


def cancel(config: Config) -> int:
    """Stop the run that holds the lock: only a process proven to be this project's run is
    signalled (see StateDir.is_our_run); ``.ralph/lock`` is data anyone can write."""
    import socket

    from ralph_verify.state import StateDir

    state = StateDir(config.root)
    info = state.read_lock()
    local = info is not None and info.host == socket.gethostname()
    proven = info is not None and local and state.is_our_run(info)
    if info is None or (local and not proven):
        from ralph_verify.hookstart import cancel_hook_session

        stopped = cancel_hook_session(config.root)  # a loop driven by the agent's Stop hook
        if stopped is not None:
            print(stopped)
            return 0
        if info is not None and (info.pid <= 1 or procinfo_alive(info.pid)):
            raise UsageError(f"the lock names pid {info.pid}, which is not a ralph-verify run "
                             f"of this project; remove {state.lock_path} if no run is active")
        data = state.read_state() or {}
        left = (f"; session {data.get('session')} was left running by a run that died: "
                "'ralph-verify run --resume' continues it"
                if data.get("status") == "running" else "")
        print(f"no run is active in {config.root}{left}")
        return 1
    assert info is not None
    state.cancel_path.write_text(f"cancel requested by pid {os.getpid()}\n", encoding="utf-8")
    if proven and sys.platform != "win32":
        import signal

        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(info.pid, signal.SIGTERM)  # a single process, proven ours, pid > 1
    deadline = time.monotonic() + float(config.get("wait"))
    while state.lock_holder() is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    if state.lock_holder() is not None:
        where = "" if local else f" on host {info.host}"
        print(f"ERROR: the run{where} (pid {info.pid}) did not stop within the wait; it will "
              "stop when it next looks at .ralph/cancel", file=sys.stderr)
        return 1
    data = state.read_state() or {}
    verdict = (data.get("verdict") or {}).get("verdict", "?")
    print(f"cancelled session {info.session} (pid {info.pid}) at iteration "
          f"{data.get('iteration')}; verdict {verdict}")
    return 0


def procinfo_alive(pid: int) -> bool:
    """Whether a process ``pid`` (> 0) lives on this machine."""
    from ralph_verify import procinfo

    return procinfo.start_time(pid) is not None


def rollback(config: Config) -> int:
    from ralph_verify import git
    from ralph_verify.state import StateDir

    state = StateDir(config.root)
    number = int(config.get("iteration"))
    data = state.read_state()
    if data is None:
        raise UsageError(f"no session in {config.root} to roll back")
    commits = ((data.get("plugin_state") or {}).get("checkpoint") or {}).get("commits") or {}
    commit = commits.get(str(number))
    if commit is None:
        known = ", ".join(sorted(commits, key=int)) or "none (was it run with --no-commit, "\
            "--no-branch outside git, or -p no:checkpoint?)"
        raise UsageError(f"session {data.get('session')} has no commit for iteration {number}; "
                         f"iterations with commits: {known}")
    if state.lock_holder() is not None:
        raise UsageError("a run is active in this project: stop it first ('ralph-verify cancel')")
    checkpoint = (data.get("plugin_state") or {}).get("checkpoint") or {}
    own = checkpoint.get("branch") or checkpoint.get("from_branch")
    here = git.current_branch(config.root)
    if own and here != own:
        raise UsageError(f"rollback commits onto the session's own branch {own}, but HEAD is "
                         f"on {here or 'a detached HEAD'}: 'git switch {own}' first (your "
                         "other branches are never rolled back)")
    dirty = git.dirty_paths(config.root)
    if dirty:
        raise UsageError(f"uncommitted changes ({', '.join(dirty[:5])}"
                         f"{' ...' if len(dirty) > 5 else ''}) would be overwritten: commit "
                         "or stash them first")
    git.restore_tree(config.root, commit)
    new = git.commit_all(config.root, f"ralph: rollback to iteration {number} ({commit[:10]})")
    where = f"as commit {new[:10]}" if new else "(the tree was already the same)"
    print(f"restored the tree of iteration {number} (commit {commit[:10]}) {where} on "
          f"{git.current_branch(config.root) or 'a detached HEAD'}")
    return 0
