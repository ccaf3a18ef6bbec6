"""``ralph-verify run``: an agent in a loop until the checks pass, and ``run``'s options.

The loop itself is the ``ralph_runloop`` hook (:mod:`ralph_verify.plugins.loop`)."""

from __future__ import annotations

from ralph_verify.checks.registry import until_specs
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser, positive_duration, positive_int
from ralph_verify.exitcode import ExitCode
from ralph_verify.loop.verdict import EXIT_CODES, PRECEDENCE, Verdict
from ralph_verify.markers import hookimpl

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
    """The verdicts and their exit codes, from :mod:`ralph_verify.loop.verdict` itself."""
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
                    "--max-iterations 10 -P PROMPT.md\n"
                    "  ralph-verify run --agent replay:examples/tdd-kata/replay "
                    "--until tests,coverage.min=90\n"
                    "  ralph-verify run --resume",
        epilog=run_epilog(),
    )
    parser.addoption("task", scope="loop", nargs="?", metavar="TASK",
                     help="the task as text (or use -P FILE; default: PROMPT.md in the root)")
    parser.addoption("-P", "--prompt", scope="loop", setting="prompt", metavar="FILE",
                     help="file with the task (-p is only -p no:NAME; -p FILE is deprecated)")
    parser.addoption("--agent", scope=("loop", "plan"), setting="agent", metavar="NAME[:ARG]",
                     help="the agent: cmd:COMMAND (prompt on stdin), replay:DIR, or an adapter "
                          "a plugin registers (see 'ralph-verify plugins')")
    parser.addoption("--max-iterations", scope=("loop", "start", "plan"),
                     setting="max-iterations", type=positive_int,
                     default=DEFAULT_MAX_ITERATIONS, metavar="N",
                     help=f"stop after N iterations (default {DEFAULT_MAX_ITERATIONS})")
    parser.addoption("--template", scope="loop", setting="template", metavar="FILE",
                     help="prompt template with {{task}}, {{feedback}}, {{iteration}}, "
                          "{{max_iterations}}, {{progress}}, {{rules}}, {{notes}}; with --tasks "
                          "also {{task_id}}, {{task_title}}, {{acceptance}}, {{tasks}}, "
                          "{{learnings}} (default: built in)")
    parser.addoption("--agent-timeout", scope="loop", setting="agent-timeout",
                     type=positive_duration, default=DEFAULT_AGENT_TIMEOUT, metavar="DURATION",
                     help="seconds one agent run may take before its whole process group is "
                          f"killed (default {DEFAULT_AGENT_TIMEOUT:g}: 30 minutes)")
    parser.addoption("--resume", scope=("loop", "start"), action="store_true", default=None,
                     help="continue the interrupted session of .ralph/state.json at its next "
                          "iteration, with its settings and plugin state (start: a stopped "
                          "hook-mode loop, its checks, task and tests as frozen at its start; "
                          "only --max-iterations and --max-time may change)")
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


@hookimpl
def ralph_configure(config: Config) -> None:
    """``run``'s usage errors (bad specs, no or unreadable task) come before anything runs:
    no lock, no .ralph/, no branch, no baseline."""
    if config.command.name != "run" or config.get("resume") or config.get("tasks"):
        return  # a task list's file is checked by plugins/commands/tasks/
    from ralph_verify.loop.settings import read_task

    until_specs(config)
    read_task(config)


def run(config: Config) -> int:
    from ralph_verify.api import run_session

    if config.get("tasks"):
        from ralph_verify.plugins.commands.tasks import run_tasks

        return run_tasks(config)

    return run_session(config)
