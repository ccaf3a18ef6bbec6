"""``ralph-verify start``: record a loop that the agent's own Stop hook drives
(:mod:`ralph_verify.hookmode.session`)."""

from __future__ import annotations

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "start", start, scopes=("verify", "start"),
        help="start a loop driven by the agent's Stop hook (inside Claude Code, Codex, "
             "Qwen Code, Gemini CLI or Copilot CLI)",
        description="Record a loop for this project: the Stop hook ('ralph-verify hook "
                    "claude-stop') then runs the checks each time the agent stops, and while "
                    "they fail sends their feedback back so it goes on. The first Stop hook "
                    "call (or --session-id, or $CLAUDE_CODE_SESSION_ID) binds the loop to one "
                    "agent session; other sessions in the project are left alone.\n\n"
                    "examples:\n  ralph-verify start --until tests,lint --max-iterations 10\n"
                    "  ralph-verify start --tasks tasks.toml   (each task in turn: docs/tasks.md)\n"
                    "  ralph-verify start --resume --max-iterations 20   (a stopped loop goes on)\n"
                    "  ralph-verify cancel",
    )
    parser.addoption("--session-id", scope="start", metavar="ID",
                     help="the agent session to bind (default: $CLAUDE_CODE_SESSION_ID, else "
                          "the first session whose Stop hook fires)")
    parser.addoption("--agent-name", scope="start", choices=("claude", "codex", "qwen", "gemini",
                                                                   "copilot"),
                     help="which agent's Stop hook drives the loop (default: the first to "
                          "call; claude when $CLAUDE_CODE_SESSION_ID binds it)")
    parser.addoption("start_task", scope="start", nargs="*", metavar="TASK",
                     help="the task, recorded for 'status' and progress.md")


def start(config: Config) -> int:
    if config.get("resume"):
        from ralph_verify.hookmode.resume import resume_loop

        return resume_loop(config)
    if config.get("tasks"):
        from ralph_verify.hookmode.task_list import start_task_list
        from ralph_verify.plugins.commands.tasks import TASK_LIST_KEY, load

        if config.get("start_task"):
            raise UsageError("start --tasks FILE takes no task of its own: each task's prompt "
                             "is in the task file (drop the words after the options)")
        task_list = config.stash.get(TASK_LIST_KEY) or load(config, str(config.get("tasks")))
        return start_task_list(config, task_list)
    from ralph_verify.hookmode.session import start_loop

    return start_loop(config)
