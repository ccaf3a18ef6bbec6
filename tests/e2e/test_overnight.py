"""Overnight runs: rate limits and outages are not iterations; idle agents are killed.

The agents are ``cmd:`` scripts speaking the documented protocol: exit 75
(``EX_TEMPFAIL``), with ``RALPH-RETRY-AFTER: <seconds | ISO time>`` for a rate
limit. The real CLIs' own errors are in tests/e2e/test_agents_limits_e2e.py.
"""

from __future__ import annotations

import time

from ralph_verify.testing import Ralph
from tests.loop_helpers import CALC, CALC_TESTS, Background, agent, history, state, wait_for

RIGHT = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"

#: Turned away ``TIMES`` times (counted in a file outside the project), then fixes calc.py.
TURNED_AWAY_THEN_FIX = """
counter = pathlib.Path(os.environ['COUNTER'])
calls = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(calls))
if calls <= int(os.environ['TIMES']):
    print(os.environ['SAYS'])
    if os.environ.get('AFTER'):
        print('RALPH-RETRY-AFTER: ' + os.environ['AFTER'])
    sys.exit(75)
pathlib.Path('calc.py').write_text(os.environ['RIGHT'])
print('fixed, call', calls)
"""


def project(ralph: Ralph) -> None:
    ralph.makepyfile(calc=CALC, **{"tests/test_calc": CALC_TESTS})


def turned_away(ralph: Ralph, monkeypatch: object, times: int, says: str,
                after: str = "") -> str:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    for key, value in {"COUNTER": str(ralph.path.parent / "calls"), "TIMES": str(times),
                       "SAYS": says, "AFTER": after, "RIGHT": RIGHT}.items():
        monkeypatch.setenv(key, value)
    return agent(ralph, TURNED_AWAY_THEN_FIX)


def calls(ralph: Ralph) -> int:
    return int((ralph.path.parent / "calls").read_text())


def test_rate_limited_twice_then_works_is_one_iteration(ralph: Ralph, monkeypatch: object
                                                        ) -> None:
    project(ralph)
    cmd = turned_away(ralph, monkeypatch, 2, "You have hit your usage limit", after="1")
    started = time.monotonic()
    # One failure or one changeless iteration would end the session if these runs counted.
    result = ralph.run("run", "--agent", cmd, "--until", "tests", "--max-agent-failures", "1",
                       "--stall-no-change", "1", "--stall-same-errors", "1", "fix calc")
    assert result.ret == 0, result
    assert calls(ralph) == 3
    assert time.monotonic() - started >= 2  # waited the second RALPH-RETRY-AFTER asked, twice
    result.stdout.fnmatch_lines([
        "iteration 1: rate limited (You have hit your usage limit); waiting 1s, then running "
        "the agent again (not counted as an iteration)",
        "iteration 1: rate limited (You have hit your usage limit); waiting 1s*",
        "iteration 1: agent exit 0 in * after 2 runs turned away (rate limit/outage; waited *",
        "verdict: complete*"])
    lines = history(ralph)
    assert [line["iteration"] for line in lines] == [1]
    assert lines[0]["agent"]["retries"] == 2 and lines[0]["agent"]["unavailable"] is None
    data = state(ralph)
    assert data["verdict"]["verdict"] == "complete"
    breaker = data["plugin_state"]["breaker"]
    assert breaker["state"] == "closed", breaker
    folder = ralph.path / ".ralph" / "iterations" / "001"
    assert "usage limit" in (folder / "agent.attempt-1.log").read_text()
    assert "usage limit" in (folder / "agent.attempt-2.log").read_text()
    assert "fixed, call 3" in (folder / "agent.log").read_text()


def test_an_iso_reset_time_is_waited_for(ralph: Ralph, monkeypatch: object) -> None:
    from datetime import datetime, timedelta, timezone

    project(ralph)
    reset = (datetime.now(timezone.utc) + timedelta(seconds=3)).isoformat()
    cmd = turned_away(ralph, monkeypatch, 1, "429 Too Many Requests", after=reset)
    started = time.monotonic()
    result = ralph.run("run", "--agent", cmd, "--until", "tests", "fix calc")
    assert result.ret == 0, result
    assert time.monotonic() - started >= 2
    assert calls(ralph) == 2 and len(history(ralph)) == 1


def test_an_outage_past_the_retry_limit_ends_agent_error_naming_it(
        ralph: Ralph, monkeypatch: object) -> None:
    project(ralph)
    cmd = turned_away(ralph, monkeypatch, 99, "upstream said: 503 Service Unavailable")
    result = ralph.run("run", "--agent", cmd, "--until", "tests", "--max-agent-retries", "2",
                       "--agent-retry-delay", "0.2s", "fix calc")
    assert result.ret == 14, result
    assert calls(ralph) == 3  # the first run and two retries
    result.stdout.fnmatch_lines([
        "iteration 1: service unavailable (upstream said: 503 Service Unavailable); waiting 0s*",
        "verdict: agent-error — the model service is unavailable: upstream said: 503 Service "
        "Unavailable (still failing after 2 retries; --max-agent-retries)"])
    assert [line["iteration"] for line in history(ralph)] == [1]


def test_a_reset_after_max_time_ends_budget_without_waiting(ralph: Ralph,
                                                            monkeypatch: object) -> None:
    project(ralph)
    cmd = turned_away(ralph, monkeypatch, 99, "usage limit reached", after="7200")
    started = time.monotonic()
    result = ralph.run("run", "--agent", cmd, "--until", "tests", "--max-time", "1h", "fix calc")
    assert time.monotonic() - started < 60
    assert result.ret == 13, result
    assert calls(ralph) == 1
    result.stdout.fnmatch_lines([
        "iteration 1: rate limited (usage limit reached); the reset in 2h00m is after "
        "--max-time (*left): not waiting",
        "verdict: budget — the model service turned the agent away (usage limit reached) and "
        "it resets after --max-time (1h00m)"])


def test_a_rate_limit_wait_can_be_cancelled(ralph: Ralph, monkeypatch: object) -> None:
    project(ralph)
    cmd = turned_away(ralph, monkeypatch, 99, "usage limit reached", after="3000")
    run = Background(ralph, "run", "--agent", cmd, "--until", "tests", "fix calc")
    try:
        wait_for(lambda: "waiting 50m00s, then running the agent again" in run.output(),
                 what="the rate-limit wait", run=run)
        assert ralph.run("cancel").ret == 0  # the user's, from outside the run
        assert run.wait() == 130, run.output()
    finally:
        run.kill()
    assert calls(ralph) == 1
    assert state(ralph)["verdict"]["verdict"] == "cancelled"


#: Says nothing and touches nothing for a long time (a hung agent); its child too.
HANGS = """
subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])
time.sleep(60)
"""


def test_an_idle_agent_is_killed_and_counted_as_a_failure(ralph: Ralph) -> None:
    project(ralph)
    started = time.monotonic()
    result = ralph.run("run", "--agent", agent(ralph, HANGS), "--until", "tests",
                       "--agent-idle-timeout", "2s", "--max-agent-failures", "2", "fix calc")
    assert time.monotonic() - started < 50  # two runs killed after 2 s each, not 60 s
    assert result.ret == 14, result
    result.stdout.fnmatch_lines([
        "iteration 1: agent exit * (idle for 2 seconds: no output, no file change; killed)*",
        "iteration 2: agent exit * (idle for 2 seconds: no output, no file change; killed)*",
        "verdict: agent-error — the agent failed 2 times in a row (last: idle for 2 seconds, "
        "killed; see the iteration's agent.log)"])
    assert history(ralph)[0]["agent"]["idle_s"] == 2


#: Waits 6 s on a "test run" that is quiet on one channel: it writes a file in the project
#: (or prints) every half second, then the agent fixes calc.py. The child is forked, so no
#: interpreter start-up eats into the idle timeout on a loaded machine.
WAITS_ON_A_BUSY_CHILD = """
how = os.environ['HOW']
child = os.fork()
if child == 0:
    for i in range(12):
        time.sleep(0.5)
        if how == 'files':
            pathlib.Path('progress.txt').write_text(str(i))
        else:
            print('test', i, flush=True)
    os._exit(0)
os.waitpid(child, 0)
pathlib.Path('calc.py').write_text(os.environ['RIGHT'])
"""


def test_a_child_that_writes_files_or_output_keeps_the_agent_alive(
        ralph: Ralph, monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    project(ralph)
    monkeypatch.setenv("RIGHT", RIGHT)
    for how in ("files", "output"):
        monkeypatch.setenv("HOW", how)
        (ralph.path / "calc.py").write_text(CALC)
        # 6 s of work with no output of the agent's own, twice the idle timeout
        result = ralph.run("run", "--agent", agent(ralph, WAITS_ON_A_BUSY_CHILD), "--until",
                           "tests", "--agent-idle-timeout", "3s", "fix calc")
        assert result.ret == 0, (how, result)
        assert history(ralph)[0]["agent"]["idle_s"] is None, (how, result)


def test_a_bad_idle_timeout_is_a_usage_error(ralph: Ralph) -> None:
    project(ralph)
    result = ralph.run("run", "--agent", "cmd:true", "--until", "tests",
                       "--agent-idle-timeout", "soon", "fix calc")
    assert result.ret == 2, result
    result.stderr.fnmatch_lines(["ERROR: --agent-idle-timeout 'soon': expected a duration *"])
