"""``.ralph/report.html``: written at the end of every ``run``, and by ``ralph-verify report``,
from the session's files only, so also for a session that crashed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.markers import hookimpl
from ralph_verify.state_files import write_text_atomic

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.loop.session import Session
    from ralph_verify.tasks.state import TasksState

REPORT_NAME = "report.html"


def write_report(ralph_dir: Path, output: Path | None = None,
                 session: str | None = None) -> Path:
    """Render the session in ``ralph_dir`` to ``output`` (default ``ralph_dir/report.html``)."""
    from ralph_verify.reports.data import load_session
    from ralph_verify.reports.html import render_report
    target = output or ralph_dir / REPORT_NAME
    data = load_session(ralph_dir, session)
    write_text_atomic(target, render_report(data, target.resolve()))
    # The temporary file was private (0600); a page to share gets the usual mode.
    target.chmod(0o644)
    return target


def _write_and_say(config: Config, ralph_dir: Path) -> None:
    try:
        target = write_report(ralph_dir)
    except Exception as exc:  # a report must never change how a run ends
        print(f"ralph-verify: could not write the report: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return
    config.hook.ralph_report_line(config=config, line=f"report: {target}")


@hookimpl
def ralph_session_finish(session: Session) -> None:
    _write_and_say(session.config, session.dir)


@hookimpl
def ralph_report_tasks(config: Config, tasks: TasksState) -> None:
    """A task list ended: the last task's report again, its task section now final."""
    ralph_dir = tasks.folder.parent
    if not (ralph_dir / "state.json").exists():
        return  # no task ran a session (every one was done already)
    _write_and_say(config, ralph_dir)
