"""``ralph-verify report [SESSION]``: write the HTML report of a session again, at any time."""

from __future__ import annotations

from pathlib import Path

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.markers import hookimpl
from ralph_verify.plugins.report import write_report
from ralph_verify.state_files import output_target


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
    # A folder or an unwritable place is a usage error before anything is read.
    path = output_target("--output", output, Path(config.invocation_dir)) if output else None
    target = write_report(config.root / ".ralph", path, config.get("session"))
    print(f"report: {target}")
    return 0
