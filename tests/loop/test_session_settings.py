"""A session takes its settings as data: one :class:`SessionSettings` per session, a session's
``config`` a copy that answers them, the parsed command line never written; and the iteration
limit is the ``max_iterations`` plugin's alone."""

from __future__ import annotations

import dataclasses

import pytest

from ralph_verify import hookimpl
from ralph_verify.config import Config
from ralph_verify.config.until import parse_spec
from ralph_verify.errors import UsageError
from ralph_verify.loop.session import Session
from ralph_verify.loop.settings import settings_for
from ralph_verify.startup import get_config
from ralph_verify.testing import Ralph
from tests.loop_helpers import CALC, CALC_TESTS, agent, history, state

#: Fixes calc.py at the third turn only.
FIX_AT_THREE = """\
if N == 3:
    src = pathlib.Path("calc.py").read_text()
    src = src.replace("return a - b", "return a + b").replace("return a + b\\n\\n\\ndef mul",
                                                             "return a + b\\n\\n\\ndef mul")
    src = src.replace("def mul(a, b):\\n    return a + b", "def mul(a, b):\\n    return a * b")
    pathlib.Path("calc.py").write_text(src)
"""


@pytest.mark.parametrize(("disabled", "ret", "verdict", "iterations"), [
    ((), 10, "max-iterations", 2),
    (("-p", "no:max_iterations"), 0, "complete", 3),
])
def test_without_the_max_iterations_plugin_a_session_has_no_iteration_limit(
        ralph: Ralph, disabled: tuple[str, ...], ret: int, verdict: str,
        iterations: int) -> None:
    ralph.makepyfile(calc=CALC, **{"tests/test_calc": CALC_TESTS})
    result = ralph.run("run", "--agent", agent(ralph, FIX_AT_THREE), "--until", "tests",
                       "--max-iterations", "2", "-p", "no:breaker", "--no-integrity",
                       *disabled, "fix calc")
    assert result.ret == ret, result
    assert state(ralph)["verdict"]["verdict"] == verdict
    assert [line["iteration"] for line in history(ralph)] == list(range(1, iterations + 1))
    if not disabled:
        assert history(ralph)[-1]["verdict"]["source"] == "max_iterations"


def test_a_session_that_used_its_iterations_resumes_only_past_a_higher_limit(
        ralph: Ralph) -> None:
    ralph.makepyfile(calc=CALC, **{"tests/test_calc": CALC_TESTS})
    script = agent(ralph, FIX_AT_THREE)
    first = ralph.run("run", "--agent", script, "--until", "tests", "--max-iterations", "2",
                      "-p", "no:breaker", "fix calc")
    assert first.ret == 10, first
    again = ralph.run("run", "--resume", "-p", "no:breaker")
    assert again.ret == 10, again  # the limit it ran with is restored: no iteration runs
    assert "reached the limit of 2 iterations (--max-iterations); raise it to go on" \
        in again.out
    assert len(history(ralph)) == 2
    on = ralph.run("run", "--resume", "--max-iterations", "5", "-p", "no:breaker")
    assert on.ret == 0, on
    assert [line["iteration"] for line in history(ralph)] == [1, 2, 3]
    assert state(ralph)["max_iterations"] == 5


def test_a_session_config_answers_its_settings_and_the_command_line_stays(
        ralph: Ralph) -> None:
    config = get_config(["run", "--root", str(ralph.path), "--max-iterations", "5",
                         "--agent", "cmd:true", "--until", "tests", "do it"])
    settings = settings_for(config, options={"max-iterations": 2, "max_time": "1m"})
    assert settings.max_iterations == 2
    assert [spec.text for spec in settings.until] == ["tests"] and settings.task == "do it"
    view = settings.config_for(config)
    assert (view.get("max_iterations"), view.get("max_time")) == (2, "1m")
    assert view.source_of("max_iterations") == "session"
    # The command's configuration is never written: it says what the user typed.
    assert config.get("max_iterations") == 5
    assert config.source_of("max_iterations") == "command line"
    # A copy made from a session's copy answers its own values, not both.
    again = view.with_values({"max_cost": 1.5})
    assert (again.get("max_iterations"), again.get("max_cost")) == (5, 1.5)
    assert again.stash is config.stash and again.pluginmanager is config.pluginmanager
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.max_iterations = 9  # type: ignore[misc]  # what the test is about


def test_settings_given_as_specs_are_checked_against_the_registry(ralph: Ralph) -> None:
    config = get_config(["run", "--root", str(ralph.path), "--agent", "cmd:true", "--until",
                         "tests", "x"])
    with pytest.raises(UsageError, match="unknown check 'nosuch'"):
        settings_for(config, until=[parse_spec("nosuch")])
    with pytest.raises(UsageError, match="--max-iterations must be at least 1"):
        settings_for(config, options={"max_iterations": 0}, until=[parse_spec("tests")])


class _Seen:
    """What each session of a run saw, and what the command's configuration says at its end."""

    def __init__(self) -> None:
        self.sessions: list[tuple[int, object, object]] = []
        self.after: tuple[object, object] | None = None

    @hookimpl
    def ralph_session_prepare(self, session: Session) -> None:
        self.sessions.append((session.max_iterations, session.config.get("max_time"),
                              [spec.text for spec in session.settings.until]))

    @hookimpl
    def ralph_unconfigure(self, config: Config) -> None:
        self.after = (config.get("max_iterations"), config.get("max_time"))


def test_each_task_s_session_has_its_own_settings_and_the_command_line_stays(
        ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", """\
        [defaults]
        keep = "files:tasks.toml"

        [[task]]
        id = "T1"
        until = "files:one.txt"
        max-iterations = 1
        max-time = "10m"

        [[task]]
        id = "T2"
        until = "files:two.txt"
        """)
    ralph.git_init()
    script = agent(ralph, """\
        name = {"T1": "one.txt", "T2": "two.txt"}[os.environ["RALPH_TASK_ID"]]
        pathlib.Path(name).write_text("done\\n")
        """)
    seen = _Seen()
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--max-iterations",
                       "7", "--max-time", "1h", plugins=[seen])
    assert result.ret == 0, result
    assert [(limit, time) for limit, time, _ in seen.sessions] == [(1, "10m"), (7, "1h")]
    assert [until for _, _, until in seen.sessions] == [
        ["files:one.txt", "files:tasks.toml"],
        ["files:two.txt", "files:one.txt", "files:tasks.toml"]]
    assert seen.after == (7, "1h")
