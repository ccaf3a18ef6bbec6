"""The prompt of each iteration, rendered from a template in one pass (quoted feedback is never
expanded again): ``{{task}}``, ``{{feedback}}``, ``{{iteration}}``, ``{{max_iterations}}``,
``{{progress}}``, ``{{rules}}`` and ``{{notes}}`` (appended when the template has none)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.errors import UsageError

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration

PLACEHOLDERS = ("task", "feedback", "iteration", "max_iterations", "progress", "notes",
                "rules", "task_id", "task_title", "acceptance", "tasks", "learnings")
#: The placeholders of a task list (``run --tasks``); empty in a run of one task.
TASK_PLACEHOLDERS = ("task_id", "task_title", "acceptance", "tasks", "learnings")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]+)\s*\}\}")

#: The rules every prompt states, in run and in hook mode alike: cheating is detected and
#: wasted, and BLOCKED is the honest way out (offering it measurably cuts test-gaming).
RULES = (
    "Make the checks pass by fixing the code, never the checks. Editing, deleting or skipping "
    "existing tests, rewriting their assertions, special-casing the tests' inputs, adding "
    "suppression comments or loosening tool settings is detected by the loop's integrity "
    "checks and fails the run: it is wasted effort. If the task or the tests contradict each "
    "other, or you cannot go on (missing access, a decision only a person can make), do not "
    "work around it: end your reply with a line like <promise>BLOCKED: the reason</promise>. "
    "The loop then stops as blocked, for a person to look at."
)

# The promise tags stand inside sentences, never alone on a line: a line the
# agent merely echoes from its prompt never counts as its promise.
DEFAULT_TEMPLATE = """\
# Task

{{task}}

# Where things stand

This is iteration {{iteration}} of at most {{max_iterations}} of an automated loop: after \
your turn the project's checks run again, and their results decide whether the work is \
done. {{progress}}

# Verification feedback

{{feedback}}

# How to work

Work in the project directory and fix the causes of the failures above.
{{rules}}
When you believe every check passes, end your reply with the tag <promise>COMPLETE</promise> \
on a line of its own; the loop verifies your claim and goes on if a check still fails.

{{notes}}
"""


def load_template(template: str | None, base: Path) -> str:
    """The template text: the built-in one, or the file ``template`` names; validated."""
    if not template:
        return DEFAULT_TEMPLATE
    path = Path(template).expanduser()
    path = path if path.is_absolute() else base / path
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--template {template}: cannot read it ({exc.strerror})") from None
    unknown = sorted({m.group(1) for m in _PLACEHOLDER.finditer(text)} - set(PLACEHOLDERS))
    if unknown:
        raise UsageError(f"template {path}: unknown placeholder(s) "
                         f"{', '.join('{{' + u + '}}' for u in unknown)}; known: "
                         f"{', '.join('{{' + p + '}}' for p in PLACEHOLDERS)}")
    return text


def render(template: str, values: Mapping[str, str]) -> str:
    """Fill the placeholders in one pass; notes go at the end if the template has no slot."""
    values = {"rules": RULES, **dict.fromkeys(TASK_PLACEHOLDERS, ""), **values}
    notes = values.get("notes", "")
    text = _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), template)
    if notes and not re.search(r"\{\{\s*notes\s*\}\}", template):
        text = text.rstrip("\n") + "\n\n" + notes + "\n"
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"


def render_notes(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return "# Notes from the loop\n\n" + "\n\n".join(n.strip() for n in notes)


def progress_text(iterations: Sequence[Iteration], number: int, limit: int = 5) -> str:
    """What the agent is told about earlier iterations (the last ``limit``)."""
    done = [it for it in iterations if it.number < number]
    if not done:
        return ("This is the first iteration: the feedback below comes from verifying the "
                "project before you started.")
    lines = ["Earlier iterations (the full log is in .ralph/progress.md):"]
    for it in done[-limit:]:
        lines.append(f"- {iteration_line(it)}")
    return "\n".join(lines)


def iteration_line(iteration: Iteration) -> str:
    """``iteration 2: changed 1 file (src/app.py); 2 of 3 checks passed (tests failing)``."""
    files = iteration.files_changed
    changed = ("changed no file" if not files else
               f"changed {len(files)} file{'s' if len(files) != 1 else ''} "
               f"({', '.join(files[:4])}{' ...' if len(files) > 4 else ''})")
    verification = iteration.verification
    if verification is None:
        checks = "not verified"
    else:
        passed = sum(1 for r in verification.results if r.passed)
        failing = [r.spec for r in verification.results if not r.passed]
        checks = f"{passed} of {len(verification.results)} checks passed"
        if failing:
            checks += f" ({', '.join(failing)} not passing)"
    return f"iteration {iteration.number}: {changed}; {checks}"
