"""One reporting path: ``check`` and ``run`` report through the same hooks, and the
``terminal`` plugin is the only thing that writes the human report (``-p no:terminal``
silences it for both; exit codes, ``--json``, files and ``ERROR:`` lines stay)."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import time

import pytest

from ralph_verify import (
    CheckResult,
    Config,
    Iteration,
    Loop,
    Session,
    Verification,
    hookimpl,
)
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

UNTIL = "files:done.txt"
#: An agent that finishes the task in its first turn.
WRITES_DONE = "pathlib.Path('done.txt').write_text('ok')\n"


class Reporter:
    """A third-party reporter: writes down every reporting event it gets."""

    def __init__(self) -> None:
        self.events: list[tuple[object, ...]] = []

    @hookimpl
    def ralph_verify_logresult(self, result: CheckResult) -> None:
        self.events.append(("result", result.spec, result.status.value))

    @hookimpl
    def ralph_report_verification(self, session: Session | None, iteration: Iteration | None,
                                  verification: Verification) -> None:
        where = "check" if session is None else \
            f"iteration {iteration.number}" if iteration is not None else "baseline"
        self.events.append(("verification", where, verification.passed))

    @hookimpl
    def ralph_report_phase(self, phase: str) -> None:
        self.events.append(("phase", phase))

    @hookimpl
    def ralph_report_agent(self, iteration: Iteration) -> None:
        assert iteration.agent is not None
        self.events.append(("agent", iteration.number, iteration.agent.exit_code,
                            tuple(iteration.files_changed)))

    @hookimpl
    def ralph_report_line(self, config: Config, line: str) -> None:
        self.events.append(("line", line.split(":")[0]))


def test_a_reporter_sees_the_same_events_for_check_and_run(ralph: Ralph) -> None:
    check, run = Reporter(), Reporter()
    assert ralph.run("check", "--until", UNTIL, plugins=[check]).ret == 1
    result = ralph.run("run", "--agent", agent(ralph, WRITES_DONE), "--until", UNTIL,
                       "--no-integrity", "finish it", plugins=[run])
    assert result.ret == 0, result
    verified = [("result", UNTIL, "failed"), ("verification", "check", False)]
    assert check.events == verified
    # The run's baseline is the same tree as the check's: the same events, then the loop's.
    baseline = [("result", UNTIL, "failed"), ("verification", "baseline", False)]
    assert run.events == [
        ("line", "warning"),  # not a git repository: no checkpoints, no rollback
        ("phase", "verifying the baseline"), *baseline,
        ("phase", f"agent {result_agent_name(run)} running"),
        ("agent", 1, 0, ("done.txt",)),
        ("phase", "verifying"),
        ("result", UNTIL, "passed"), ("verification", "iteration 1", True),
        ("phase", "finished: complete"),
        ("line", "report"),
    ]


def result_agent_name(reporter: Reporter) -> str:
    phases = [e[1] for e in reporter.events if e[0] == "phase" and str(e[1]).startswith("agent")]
    assert phases, reporter.events
    return str(phases[0]).split()[1]


def test_no_terminal_silences_check_and_run_and_keeps_the_rest(ralph: Ralph) -> None:
    shown = ralph.run("check", "--until", UNTIL)
    assert shown.ret == 1 and "FAILED: 1 check failed" in shown.out
    silent = ralph.run("check", "-p", "no:terminal", "--until", UNTIL)
    assert (silent.ret, silent.out, silent.err) == (1, "", "")
    as_json = ralph.run("check", "-p", "no:terminal", "--until", UNTIL, "--json", "-")
    assert as_json.ret == 1 and as_json.err == ""
    assert json.loads(as_json.out)["passed"] is False
    # The same for run: its report is gone, its exit code, --json, and .ralph/ are not.
    fixer = agent(ralph, WRITES_DONE)
    shown = ralph.run("run", "--agent", fixer, "--until", UNTIL, "task")
    assert shown.ret == 0 and "verdict: complete" in shown.out
    (ralph.path / "done.txt").unlink()
    silent = ralph.run("run", "-p", "no:terminal", "--agent", fixer, "--until", UNTIL, "task")
    assert (silent.ret, silent.out, silent.err) == (0, "", "")
    assert (ralph.path / ".ralph/report.html").is_file()
    (ralph.path / "done.txt").unlink()
    as_json = ralph.run("run", "-p", "no:terminal", "--agent", fixer, "--until", UNTIL,
                        "--json", "-", "task")
    assert as_json.ret == 0 and as_json.err == ""
    assert json.loads(as_json.out)["verdict"] == "complete"


def test_no_terminal_keeps_the_errors(ralph: Ralph) -> None:
    """Errors are not the report: they still reach stderr, with the documented exit code."""
    result = ralph.run("run", "-p", "no:terminal", "--agent", agent(ralph, WRITES_DONE),
                       "--until", 'cmd:"sleep 5"', "--timeout", "0.3", "task")
    assert result.ret == 3 and result.out == ""
    assert result.err.startswith("ERROR: the baseline verification could not decide")


def _run_argv(ralph: Ralph, *extra: str) -> list[str]:
    slow = agent(ralph, "time.sleep(1.5)\n" + WRITES_DONE)
    return [sys.executable, "-m", "ralph_verify", "run", *extra, "--agent", slow, "--until",
            UNTIL, "--no-integrity", "task"]


def _on_a_terminal(ralph: Ralph, argv: list[str]) -> tuple[int, str]:
    primary, secondary = os.openpty()
    proc = subprocess.Popen(argv, cwd=ralph.path, stdin=subprocess.DEVNULL, stdout=secondary,
                            stderr=secondary, env={**os.environ, **ralph.env, "TERM": "xterm"})
    os.close(secondary)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(primary, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(primary)
    return code, seen.decode("utf-8", "replace")


def test_the_live_status_line_is_shown_on_a_terminal_only(ralph: Ralph) -> None:
    code, screen = _on_a_terminal(ralph, _run_argv(ralph))
    assert code == 0, screen
    assert "\r\x1b[2K[ralph] iteration 1/20 · " in screen
    assert "agent cmd running" in screen and "verdict: complete" in screen
    # The status line is wiped at the end: the last thing written is the erase.
    assert screen.rstrip("\r\n").endswith("\x1b[2K")
    (ralph.path / "done.txt").unlink()
    piped = subprocess.run(_run_argv(ralph), cwd=ralph.path, capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL, env={**os.environ, **ralph.env})
    assert piped.returncode == 0, piped
    assert "verdict: complete" in piped.stdout
    assert "[ralph]" not in piped.stdout and "\x1b" not in piped.stdout
    # The status line is the terminal plugin's too: -p no:terminal removes it with the rest.
    (ralph.path / "done.txt").unlink()
    code, screen = _on_a_terminal(ralph, _run_argv(ralph, "-p", "no:terminal"))
    assert code == 0 and screen == ""


def test_the_python_api_reports_to_the_stream_it_is_given(
        ralph: Ralph, capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    result = Loop(agent=agent(ralph, WRITES_DONE), until=UNTIL, task="t", root=ralph.path,
                  stream=out).run()
    assert result.exit_code == 0
    pytest.LineMatcher(out.getvalue().splitlines()).fnmatch_lines([
        "ralph-verify run · session *", "baseline: * checks passed*",
        "iteration 1: agent exit 0*", "verdict: complete*"])
    assert capsys.readouterr().out == ""


def _stop(ralph: Ralph, reporter: Reporter, message: str) -> None:
    payload = {"session_id": "s-1", "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": message, "cwd": str(ralph.path)}
    assert ralph.run("hook", "claude-stop", stdin=json.dumps(payload), plugins=[reporter]).ret == 0


@pytest.mark.parametrize("driver", ["run", "hook"])
def test_both_drivers_report_the_same_verifications(ralph: Ralph, driver: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The Stop hook prints no report (its stdout is the agent's), yet a reporter sees what
    it sees under run: the baseline, then each iteration's agent and verification."""
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    reporter = Reporter()
    if driver == "run":
        script = agent(ralph, "if N == 2:\n    pathlib.Path('done.txt').write_text('ok')\n")
        result = ralph.run("run", "--agent", script, "--until", UNTIL, "--no-integrity",
                           "--allow-dirty", "create done.txt", plugins=[reporter])
        assert result.ret == 0, result
    else:
        assert ralph.run("start", "--until", UNTIL, "create done.txt",
                         plugins=[reporter]).ret == 0
        _stop(ralph, reporter, "not yet")
        ralph.makefile("done.txt", "ok\n")
        _stop(ralph, reporter, "done")
    seen = [(e[0], *e[1:3]) for e in reporter.events if e[0] in ("verification", "agent")]
    assert seen == [("verification", "baseline", False), ("agent", 1, 0),
                    ("verification", "iteration 1", False), ("agent", 2, 0),
                    ("verification", "iteration 2", True)]



class Shouter:
    """A plugin whose line carries a text it got from elsewhere (a tool, a web page)."""

    @hookimpl
    def ralph_iteration_start(self, session: Session) -> None:
        session.config.hook.ralph_report_line(
            config=session.config, line="news: \x1b]0;pwned\x07\x1b[2Jcleared")


def test_no_escape_sequence_reaches_the_terminal_through_a_report_line(ralph: Ralph) -> None:
    """The terminal is the one writer: every line it prints is cleaned there."""
    result = ralph.run("run", "--agent", agent(ralph, WRITES_DONE), "--until", UNTIL, "task",
                       plugins=[Shouter()])
    assert result.ret == 0, result
    assert "news: cleared" in result.stdout.lines
    assert "\x1b" not in result.out and "\x07" not in result.out
