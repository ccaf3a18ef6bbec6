"""``.ralph/report.html``: written at the end of every ``run``, and by ``ralph-verify report``.

The page is built from the session's files only (see :mod:`ralph_verify.reports`),
so it can be written again at any time, also for a session that crashed.
Disable it with ``-p no:report``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify import hookimpl
from ralph_verify.config.parser import Parser

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.iteration import Session

REPORT_NAME = "report.html"


def write_report(ralph_dir: Path, output: Path | None = None,
                 session: str | None = None) -> Path:
    """Render the session in ``ralph_dir`` to ``output`` (default ``ralph_dir/report.html``)."""
    from ralph_verify.reports.data import load_session
    from ralph_verify.reports.html import render_report
    from ralph_verify.state_files import write_text_atomic

    target = output or ralph_dir / REPORT_NAME
    data = load_session(ralph_dir, session)
    write_text_atomic(target, render_report(data, target.resolve()))
    # The temporary file was private (0600); a page to share gets the usual mode.
    target.chmod(0o644)
    return target


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "report", report, scopes=("report",),
        help="write the HTML report of the last session (.ralph/report.html)",
        description="Render the session of .ralph/ as one self-contained HTML page: the verdict "
                    "and why, time and cost, a chart of progress per iteration, one row per "
                    "iteration, the failures that kept coming back and the integrity "
                    "findings. 'run' writes it at its end too.",
    )
    parser.addoption("session", scope="report", nargs="?", metavar="SESSION",
                     help="the session id (default: the last one; only its files are kept)")
    parser.addoption("-o", "--output", scope="report", metavar="FILE",
                     help="where to write the page (default: .ralph/report.html)")


def report(config: Config) -> int:
    output = config.get("output")
    target = write_report(config.root / ".ralph",
                          Path(config.invocation_dir, output) if output else None,
                          config.get("session"))
    print(f"report: {target}")
    return 0


@hookimpl
def ralph_session_finish(session: Session) -> None:
    try:
        target = write_report(session.dir)
    except Exception as exc:  # a report must never change how a run ends
        print(f"ralph-verify: could not write the report: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return
    session.config.hook.ralph_report_line(config=session.config, line=f"report: {target}")
