"""``ralph-verify tasks check FILE`` / ``tasks status`` and ``run --tasks FILE``.

``tasks check`` names each task whose checks pass already: it cannot tell done from not done.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from typing import TYPE_CHECKING

from ralph_verify.checks.tool_output import one_line
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.config.stash import StashKey
from ralph_verify.display import duration
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl
from ralph_verify.plugins.commands import tasks_manage
from ralph_verify.plugins.commands.tasks_manage import load as load
from ralph_verify.plugins.json_report import write_json
from ralph_verify.state_files import write_text_atomic

if TYPE_CHECKING:
    from ralph_verify.agents import AgentResult
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.tasks.model import TaskList
    from ralph_verify.tasks.state import TasksState

#: The actions of ``tasks``.
ACTIONS = ("check", "status", "import", "export", "retry", "skip", "reset", "rollback", "plan")
#: The task list ``run --tasks`` validated at configure time.
TASK_LIST_KEY: StashKey[TaskList] = StashKey("tasks.list")


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "tasks", tasks_command, scopes=("verify", "status", "tasks", "plan"),
        help="task lists: 'tasks check FILE' (valid? order? checks red before any work?), "
             "'tasks status [--json] [--watch]' (the table of the last 'run --tasks'), "
             "'tasks import prd.json -o tasks.toml', 'tasks export' (the verified statuses "
             "into prd.json), "
             "'tasks retry|skip|reset|rollback ID', 'tasks plan SPEC.md -o tasks.toml'",
        description="Work with a task file (tasks.toml) for 'run --tasks FILE'.\n\nexamples:\n"
                    "  ralph-verify tasks check tasks.toml\n"
                    "  ralph-verify run --tasks tasks.toml --agent claude\n"
                    "  ralph-verify tasks status --json\n"
                    "  ralph-verify tasks export            # the verified statuses into "
                    "prd.json\n"
                    "  ralph-verify tasks rollback T2\n"
                    "  ralph-verify tasks plan SPEC.md -o tasks.toml --agent claude",
    )
    parser.addoption("tasks_action", scope="tasks", choices=ACTIONS, metavar="ACTION",
                     help="check FILE, status [--watch], import FILE [-o tasks.toml], export "
                          "[FILE] [--to prd.json|tasks.md], retry|skip|reset|rollback ID, plan "
                          "SPEC.md -o tasks.toml")
    parser.addoption("-o", "--output", scope="tasks", dest="tasks_output", metavar="FILE",
                     help="tasks import/export: the file to write (default: stdout); tasks "
                          "plan: the tasks.toml the agent writes")
    parser.addoption("task_file", scope="tasks", nargs="?", metavar="FILE|ID",
                     help="the task file (check, import, export), the spec (plan) or the "
                          "task's id (retry, skip, reset, rollback)")
    parser.addoption("--tasks", scope=("loop", "start"), metavar="FILE",
                     help="work through the task list of FILE (tasks.toml), task by task, each "
                          "done only when its own checks pass (docs/tasks.md)")
    parser.addoption("--only", scope="loop", metavar="ID",
                     help="with --tasks: run that task alone (its dependencies must be done)")
    parser.addoption("--pause-after-task", scope="loop", action="store_true", default=None,
                     help="with --tasks: stop after each task done (exit 0, verdict paused); "
                          "'run --tasks FILE --resume' takes the next")
    parser.addoption("--from", scope="loop", dest="from_task", metavar="ID",
                     help="with --tasks: start at that task; those before it that are not done "
                          "are skipped for this run")
    parser.addoption("--squash", scope="loop", action="store_true", default=None,
                     help="with --tasks: one commit per task (its iterations squashed into the "
                          "commit named after it)")


@hookimpl
def ralph_configure(config: Config) -> None:
    """A bad task file is a usage error before any lock, branch or agent."""
    if config.command.name in ("run", "start") and config.get("tasks"):
        if config.get("resume"):  # a task file the agent deleted before a kill -9
            from ralph_verify.loop.task_steps import put_file_back

            put_file_back(config.root, config.invocation_dir / str(config.get("tasks")))
        config.stash[TASK_LIST_KEY] = load(config, str(config.get("tasks")))


def run_tasks(config: Config) -> int:
    """``run --tasks FILE``."""
    from ralph_verify.loop.task_list import run_task_list

    task_list = config.stash.get(TASK_LIST_KEY) or load(config, str(config.get("tasks")))
    code = run_task_list(config, task_list)
    _write_json(config, _read_state(config))
    return code


def tasks_command(config: Config) -> int:
    action = config.get("tasks_action")
    if action == "status":
        if config.get("watch"):
            return tasks_manage.watch(config, _status, _read_state)
        return _status(config)
    if action in ("retry", "skip", "reset"):
        return tasks_manage.change(config, str(action))
    if action == "rollback":
        return tasks_manage.rollback(config)
    if action == "export":
        return tasks_manage.export(config)
    if action == "plan":
        from ralph_verify.plugins.commands.tasks.plan import plan

        return plan(config)
    name = config.get("task_file")
    if not name:
        raise UsageError(f"tasks {action} needs the task file: ralph-verify tasks {action} "
                         "tasks.toml")
    if action == "import":
        return _import(config, str(name))
    return _check(config, load(config, str(name)))


def _import(config: Config, name: str) -> int:
    """``tasks import FILE``: a prd.json or checklist written as tasks.toml; the tasks with
    no check of their own are listed (each is done only on fail-to-pass tests)."""
    from ralph_verify.tasks.importers import to_toml, translate

    data, _ = translate(config.invocation_dir / name,
                        lambda note: print(f"ralph-verify: {note}", file=sys.stderr))
    text = to_toml(data)
    target = config.get("tasks_output")
    if target:
        write_text_atomic(config.invocation_dir / str(target), text)
        print(f"wrote {target}: {len(data.get('task', []))} tasks")
    else:
        sys.stdout.write(text)
    missing = [table["id"] for table in data.get("task", [])
               if "until" not in table and table.get("status") != "skip"]
    if missing:
        print("these tasks have no check of their own: each is done only on fail-to-pass "
              "tests the agent adds (or give it until = \"tests:...\"): "
              + ", ".join(missing), file=sys.stderr)
    return 0


def _check(config: Config, task_list: TaskList) -> int:
    from ralph_verify.checks.registry import build_checks
    from ralph_verify.checks.verification import verify
    from ralph_verify.tasks.order import ordered

    print(f"{task_list.path}: {len(task_list.tasks)} tasks, valid"
          + ("" if task_list.declared else " (no depends-on: a chain, in file order)"))
    for number, task in enumerate(ordered(task_list), 1):
        deps = task_list.dependencies(task)
        after = f"  after {', '.join(deps)}" if deps else ""
        print(f"  {number}. {task.id} [{task.status}] {task.title}{after}  until "
              f"{task.until_text or 'fail-to-pass tests (no check of its own)'}")
    todo = [task for task in task_list.tasks if task.status == "todo"]
    word = [task.id for task in todo if task.promise_only]
    if word:
        print("these tasks' only check is the agent's word (until = \"promise\"): nothing "
              "would show their work; give them checks of their own: " + ", ".join(word))
    specs = list({spec.text: spec for task in todo for spec in task.until
                  if spec.name != "promise"}.values())
    if not specs:
        return 1 if word else 0
    verification = verify(config, build_checks(config, specs))
    by_spec = {result.spec: result for result in verification.results}
    passing = [task for task in todo if all(
        by_spec[spec.text].passed for spec in task.until if spec.text in by_spec)
        and any(spec.text in by_spec for spec in task.until)]
    for result in verification.results:
        print(f"  {result.status.value.upper():<7} {result.spec}  {one_line(result.summary, 90)}")
    if passing:
        print("these tasks' checks pass already, before any work (their checks cannot tell "
              "done from not done; give them checks that fail now): "
              + ", ".join(task.id for task in passing))
    if passing or word:
        return 1
    print("every task's checks fail now: each task is real work")
    return 0


def _read_state(config: Config) -> TasksState | None:
    """The last task list's table: ``run --tasks``' (or ``start --tasks``'), or a fleet's
    when it ran later."""
    from ralph_verify.loop.task_steps import trusted
    from ralph_verify.tasks.state import TasksState

    state, fleet = trusted(config.root), TasksState.of_fleet(config.root)
    if fleet is None or (state is not None and state.path.stat().st_mtime >=
                         (fleet.folder / "fleet.json").stat().st_mtime):
        return state
    return fleet


def _write_json(config: Config, state: TasksState | None) -> bool:
    if config.get("json") is None or state is None:
        return False
    write_json(config, state.public_json())
    return True


def _status(config: Config) -> int:
    state = _read_state(config)
    if state is None:
        print(f"no task list in {config.root} (no .ralph/tasks/state.json, no "
              "fleet/fleet.json): start one with 'ralph-verify run --tasks tasks.toml'")
        return 1
    if _write_json(config, state):
        return 0
    print(f"task list {state.file} · session {state.session} · "
          f"{state.verdict or ('running ' + str(state.current) if state.current else 'open')}")
    print(f"  {'id':<10} {'status':<12} {'iter':>4} {'time':>7} {'cost':>8}  {'commit':<10} "
          "title / why")
    for row in state.tasks:
        cost = f"${row.cost_usd:.2f}" if row.cost_usd else "-"
        print(f"  {row.id:<10} {row.status:<12} {row.iterations:>4} "
              f"{duration(row.duration_s):>7} {cost:>8}  {(row.commit or '-')[:10]:<10} "
              f"{row.title}" + (f" — {row.reason}" if row.reason else ""))
    for note in state.notes:
        print(f"note: {note}")
    if state.verdict:
        _export_hint(state.file)
    return 0


def _export_hint(name: str) -> None:
    """After a list: how to put these statuses into the user's own file."""
    from pathlib import Path

    from ralph_verify.tasks.export import own_format

    try:
        fmt = own_format(Path(name), Path(name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return
    if fmt is not None:
        print(f"'ralph-verify tasks export' writes these verified statuses into "
              f"{Path(name).name} (its ticks are claims until then)")


@hookimpl(wrapper=True)
def ralph_run_agent(session: Session, iteration: Iteration) -> Generator[
        None, AgentResult | None, AgentResult | None]:
    """After the agent's turn in a task list: the task file put back as the list read it
    (the agent's edit kept in ``.ralph/tasks/edited/``), so the commit verified next
    carries the user's file."""
    result = yield
    from ralph_verify.tasks.keys import TASK_FILE_KEY, put_back

    kept = session.config.stash.get(TASK_FILE_KEY)
    if kept is not None and put_back(session.root, *kept):
        session.config.hook.ralph_report_line(
            config=session.config, line=f"ralph-verify: the agent changed {kept[0].name}; it "
            "was put back as the list read it (the agent's version is kept in "
            f".ralph/tasks/edited/{kept[0].name})")
    return result
