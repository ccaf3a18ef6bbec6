"""``--github``: GitHub Actions annotations and a job summary.

Each located failure becomes an ``::error file=...,line=...`` command (shown on the pull
request's diff); with ``GITHUB_STEP_SUMMARY`` a Markdown summary of the checks, iterations or
tasks is appended. Values are escaped as the runner unescapes them."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure, Status
from ralph_verify.display import tally
from ralph_verify.markers import hookimpl
from ralph_verify.plugins.feedback import fence
from ralph_verify.redact import cut, redact

if TYPE_CHECKING:
    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config
    from ralph_verify.config.parser import Parser
    from ralph_verify.loop.session import Session
    from ralph_verify.loop.verdict import VerdictProposal
    from ralph_verify.tasks.state import TasksState

#: Annotations per run; GitHub shows only the first few per step anyway.
MAX_ANNOTATIONS = 50
_ICONS = {Status.PASSED: "✅", Status.FAILED: "❌", Status.ERROR: "⚠️", Status.SKIPPED: "⏭️"}


def escape_data(text: str) -> str:
    """Escape a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value (``file=``, ``title=``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **properties: str | int | None) -> str:
    """``::name key=value,...::message`` with everything escaped; ``None`` properties left out."""
    props = ",".join(f"{key}={escape_property(str(value))}"
                     for key, value in properties.items() if value is not None)
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def workspace_path(root: Path, path: str) -> str:
    """``path`` (relative to the project root) relative to ``$GITHUB_WORKSPACE`` when inside it."""
    full = (root / path).resolve()
    for base in (os.environ.get("GITHUB_WORKSPACE"), root):
        if base and full.is_relative_to(Path(base).resolve()):
            return full.relative_to(Path(base).resolve()).as_posix()
    return path


def _column(failure: Failure) -> int | None:
    """The column of ``path:line:col`` locations (ruff, mypy), else ``None``."""
    prefix = f"{failure.path}:{failure.line}:"
    if failure.line is None or not (failure.location or "").startswith(prefix):
        return None
    column = (failure.location or "")[len(prefix):].split(":")[0]
    return int(column) if column.isdigit() else None


def _message(failure: Failure) -> str:
    text = redact(failure.message)
    if failure.detail:
        text += "\n\n" + cut(failure.detail, 2000)
    return text


def annotation_lines(verification: Verification) -> Iterator[str]:
    """The workflow commands for a verification's failures, at most :data:`MAX_ANNOTATIONS`."""
    items: list[str] = []
    for result in verification.results:
        if result.status not in (Status.FAILED, Status.ERROR):
            continue
        located = [f for f in result.failures if f.path]
        title_base = f"ralph-verify {result.spec}"
        if result.status is Status.ERROR or not located:
            items.append(command("error", redact(result.summary), title=title_base))
        else:
            items += [command("error", _message(f),
                              file=workspace_path(verification.root, f.path or ""),
                              line=f.line, col=_column(f),
                              title=f"{title_base}: {f.code}" if f.code else title_base)
                      for f in located]
    yield from items[:MAX_ANNOTATIONS]
    if len(items) > MAX_ANNOTATIONS:
        yield command("warning", f"{len(items) - MAX_ANNOTATIONS} more failures were not "
                                 f"annotated (limit {MAX_ANNOTATIONS}); see the job summary "
                                 "or --json", title="ralph-verify")


def _cell(text: str) -> str:
    return " ".join(redact(text).split()).replace("|", "\\|")


def checks_table(verification: Verification) -> str:
    """One row per check: its status in its own word and its summary, which says what its
    number is (``1 failed, 2 passed``, ``91% >= 80%``): a bare metric column could not."""
    lines = ["| | check | status | summary |", "| --- | --- | --- | --- |"]
    for result in verification.results:
        lines.append(f"| {_ICONS[result.status]} | `{_cell(result.spec)}` | "
                     f"{result.status.value} | {_cell(result.summary)} |")
    return "\n".join(lines)


def _feedback_block(verification: Verification) -> str:
    if verification.passed:
        return ""
    return (f"\n<details><summary>Feedback</summary>\n\n{fence(redact(verification.feedback))}"
            "\n\n</details>\n")


def session_summary(session: Session, verdict: VerdictProposal) -> str:
    lines = [f"## ralph-verify run: {verdict.verdict.value}", "", _cell(verdict.reason), "",
             "| iteration | verification | failing checks | seconds |",
             "| --- | --- | --- | --- |"]
    for iteration in session.iterations:
        ver = iteration.verification
        if ver is None:
            lines.append(f"| {iteration.number} | not verified | | "
                         f"{iteration.duration_s:.1f} |")
            continue
        failing = ", ".join(f"`{_cell(r.spec)}`" for r in ver.results if not r.passed)
        lines.append(f"| {iteration.number} | {'passed' if ver.passed else 'failed'} | "
                     f"{failing} | {iteration.duration_s:.1f} |")
    last = session.previous_verification()
    if last is not None:
        lines += ["", "### Last verification", "", checks_table(last), _feedback_block(last)]
    return "\n".join(lines) + "\n"


def append_summary(markdown: str) -> None:
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(markdown)


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--github", scope="output", action="store_true", default=None,
                     help="print GitHub Actions annotations for failures and append a Markdown "
                          "summary to $GITHUB_STEP_SUMMARY when it is set")


def _emit(config: Config, lines: Iterator[str]) -> None:
    """Workflow commands on lines of their own: stdout, or stderr when stdout carries JSON."""
    stream = sys.stderr if config.get("json") == "-" else sys.stdout
    sys.stdout.flush()
    for line in lines:
        stream.write(line + "\n")
    stream.flush()


@hookimpl
def ralph_verification_finish(config: Config, verification: Verification) -> None:
    if not config.get("github") or config.command.name != "check":
        return
    _emit(config, annotation_lines(verification))
    verdict = "passed" if verification.passed else "failed"
    counts = tally([result.status.value for result in verification.results])
    append_summary(f"## ralph-verify check: {verdict} ({counts})\n\n"
                   f"{checks_table(verification)}\n{_feedback_block(verification)}\n")


@hookimpl
def ralph_session_finish(session: Session, verdict: VerdictProposal) -> None:
    if not session.config.get("github"):
        return
    last = session.previous_verification()
    if last is not None:
        _emit(session.config, annotation_lines(last))
    append_summary(session_summary(session, verdict))


#: A task's status as the summary shows it.
_TASK_ICONS = {"done": "✅", "already": "✅", "skipped": "⏭️", "todo": "⏸️"}


def tasks_summary(tasks: TasksState) -> str:
    """The task table of ``tasks status``, in Markdown."""
    from ralph_verify.tasks.order import DONE

    done = sum(row.status in DONE for row in tasks.tasks)
    lines = [f"## ralph-verify tasks: {tasks.verdict or 'open'}", "",
             f"{done} of {len(tasks.tasks)} tasks done (`{_cell(Path(tasks.file).name)}`)", "",
             "| | task | status | iterations | seconds | cost | commit | why |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in tasks.tasks:
        cost = f"${row.cost_usd:.2f}" if row.cost_usd else ""
        lines.append(f"| {_TASK_ICONS.get(row.status, '❌')} | `{_cell(row.id)}` "
                     f"{_cell(row.title)} | {row.status} | {row.iterations} | "
                     f"{row.duration_s:.1f} | {cost} | {_cell((row.commit or '')[:10])} | "
                     f"{_cell(row.reason)} |")
    lines += [f"\n> {_cell(note)}" for note in tasks.notes]
    return "\n".join(lines) + "\n"


@hookimpl
def ralph_report_tasks(config: Config, tasks: TasksState) -> None:
    from ralph_verify.tasks.order import DONE

    if not config.get("github"):
        return
    _emit(config, (command("error", f"task {row.id} ({row.title}) is {row.status}: "
                                    f"{row.reason}", title=f"ralph-verify task {row.id}")
                   for row in tasks.tasks
                   if row.status not in DONE | {"skipped"}))
    append_summary(tasks_summary(tasks))
