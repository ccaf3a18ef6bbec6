"""The terminal: a live status line on a TTY, plain lines elsewhere; ``run --help``."""

from __future__ import annotations

import io

from ralph_verify.display import Display, duration
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_status_line_on_a_tty_stays_under_permanent_lines() -> None:
    stream = _Tty()
    display = Display(stream)
    display.iteration, display.max_iterations, display.checks = 2, 10, "3/4"
    display.phase("agent running")
    display.line("iteration 1: agent exit 0")
    text = stream.getvalue()
    status = "[ralph] iteration 2/10 · 0s · agent running (0s) · checks 3/4"
    assert text.startswith("\r\x1b[2K" + status)
    # The status line is wiped before a permanent line, then painted again below it.
    assert text.endswith("\r\x1b[2Kiteration 1: agent exit 0\n\r\x1b[2K" + status)
    display.stop()
    assert stream.getvalue().endswith("\r\x1b[2K")


def test_plain_lines_when_not_a_tty() -> None:
    stream = io.StringIO()
    display = Display(stream)
    display.start()
    display.phase("verifying")
    display.line("baseline: 0/1 checks passed")
    display.stop()
    assert stream.getvalue() == "baseline: 0/1 checks passed\n"
    quiet = io.StringIO()
    Display(quiet, quiet=True).line("x")
    assert quiet.getvalue() == ""


def test_duration() -> None:
    assert [duration(s) for s in (0, 59.9, 61, 3599, 3600, 7322)] == [
        "0s", "59s", "1m01s", "59m59s", "1h00m", "2h02m"]


def test_run_help_documents_verdicts_and_json_result(ralph: Ralph) -> None:
    help_text = ralph.run("run", "--help")
    assert help_text.ret == 0
    help_text.stdout.fnmatch_lines([
        "verdicts and exit codes:",
        "  0   complete        every check passes*",
        "  10  max-iterations  *", "  11  stalled  *", "  12  blocked  *", "  13  budget  *",
        "  14  agent-error  *", "  130 cancelled       Ctrl-C, SIGTERM or 'ralph-verify cancel'",
        "  3   a check could not decide at baseline*"])
    result = ralph.run("run", "--agent", agent(ralph, "print('<promise>BLOCKED: why</promise>')"),
                       "--until", "files:x", "--json", "-q", "task")
    assert result.ret == 12
    data = result.json()
    assert data["verdict"] == "blocked" and data["exit_code"] == 12
    assert data["iterations"][0]["promises"] == ["BLOCKED: why"]
    assert data["verification"]["passed"] is False
