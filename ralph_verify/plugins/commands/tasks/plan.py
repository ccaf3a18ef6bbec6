"""``ralph-verify tasks plan SPEC.md -o tasks.toml --agent NAME``: the agent plans in the one
loop until ``cmd:"ralph-verify tasks check FILE"`` passes on the file it wrote."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from ralph_verify.config import Config
from ralph_verify.config.until import parse_until
from ralph_verify.errors import UsageError
from ralph_verify.exitcode import ExitCode
from ralph_verify.loop.settings import settings_for
from ralph_verify.tasks.formats import quote_cmd

PLAN_PROMPT = """\
Plan the work of the specification below as a task list for ralph-verify, written to \
{output}. Do not implement anything: write the task file, and the tests each task's checks \
name when they do not exist yet (tests that fail now, because the work is not done).

The file is TOML: an optional [defaults] table and one [[task]] table per task:

    [[task]]
    id = "T1"                          # letters, digits, '.', '_' or '-'
    title = "one line"
    prompt = \"\"\"what to do, precisely\"\"\"
    until = "tests:tests/test_x.py"    # this task's own checks (the --until grammar)
    depends-on = ["T0"]                # optional; without any, the list is a chain

Rules the file is checked against ('ralph-verify tasks check {output}'):
- every task has checks of its own in `until` (for example tests:tests/test_x.py, \
tests:tests/test_x.py::test_y, lint, types, files:PATH, cmd:"COMMAND"); "promise" (your \
word) is no check;
- no unknown key, no duplicate id, no dependency on an unknown task, no cycle;
- every task's checks FAIL on today's tree: a task whose checks pass already is no work.

Keep tasks small (one behaviour each), ordered so that each builds on the ones before.

# The specification ({spec})

{text}
"""


def plan(config: Config) -> int:
    """Run the agent until ``tasks check OUT`` passes; exit 0 then, else 1."""
    from ralph_verify.api import run_session

    name = config.get("task_file")
    output = config.get("tasks_output")
    if not name or not output:
        raise UsageError("tasks plan needs the spec and the file to write: ralph-verify tasks "
                         "plan SPEC.md -o tasks.toml --agent NAME")
    if not config.get("agent"):
        raise UsageError("tasks plan needs an agent: --agent NAME (e.g. --agent claude, or "
                         "--agent cmd:COMMAND)")
    spec = config.invocation_dir / Path(str(name)).expanduser()  # absolute: stays itself
    try:
        text = spec.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"tasks plan: the spec {spec} cannot be read "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    target = config.invocation_dir / str(output)
    shown = _relative(target, config.root)
    check = quote_cmd(f"{shlex.quote(sys.executable)} -m ralph_verify tasks check "
                      f"{shlex.quote(shown)}")
    settings = settings_for(config, until=parse_until(check), resume=False,
                            task=PLAN_PROMPT.format(output=shown, spec=spec.name,
                                                    text=text.strip()))
    code = run_session(config, settings)
    if code not in (ExitCode.OK, ExitCode.CANCELLED):
        code = ExitCode.CHECKS_FAILED  # the plan is not done, whatever ended the session
    if code == 0:
        print(f"tasks plan: {shown} passes 'tasks check': valid, and every task's checks "
              "fail on today's tree; run it with 'ralph-verify run --tasks "
              f"{shown}'")
    else:
        print(f"tasks plan: {shown} does not pass 'tasks check' yet; see the feedback above",
              file=sys.stderr)
    return int(code)


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
