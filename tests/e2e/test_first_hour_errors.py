"""What a new user runs into in the first hour (issue 25): each bad input is one clear
``ERROR:`` line, no traceback, and nothing the user had is overwritten."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys

import pytest

from ralph_verify import CheckRegistry, hookimpl
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

WRITES_DONE = "pathlib.Path('done.txt').write_text('ok')\n"


def _project(ralph: Ralph) -> None:
    ralph.makefile("PROMPT.md", "write done.txt\n")
    ralph.git_init()


def _clean_error(stderr: str, text: str) -> None:
    assert "Traceback" not in stderr and "INTERNAL ERROR" not in stderr, stderr
    assert stderr.startswith("ERROR: ") and text in stderr, stderr


def test_run_on_a_read_only_project_is_one_line(ralph: Ralph) -> None:
    """A read-only bind mount in a mount namespace of its own: nothing outside sees it."""
    unshare = shutil.which("unshare")
    assert unshare is not None, "this test needs unshare (util-linux): apt-get install util-linux"
    _project(ralph)
    path = shlex.quote(str(ralph.path))
    python = shlex.quote(sys.executable)
    script = (f"mount --bind {path} {path} && mount -o remount,bind,ro {path} && cd {path} && "
              f"{python} -m ralph_verify run --agent cmd:true --until files:done.txt")
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    done = subprocess.run([unshare, *user, "--mount", "--propagation", "private", "sh", "-c",
                           script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **ralph.env})
    assert done.returncode == 2, done
    _clean_error(done.stderr, f"cannot write {ralph.path}/.ralph: Read-only file system")
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (ralph.path / ".ralph").exists()


@pytest.mark.parametrize(("command", "message"), [
    ("no-such-agent-program --fix", "agent command not found: 'no-such-agent-program'"),
    ("echo (", "the agent command is not valid shell"),
    ("./missing-agent.sh --fix", "agent command not found: './missing-agent.sh': no such file "
                                 "in the project root"),
    ("./not-executable.sh", "agent command './not-executable.sh' is not executable: chmod +x"),
])
def test_a_broken_cmd_agent_stops_before_the_baseline(ralph: Ralph, command: str,
                                                      message: str) -> None:
    _project(ralph)
    ralph.makefile("not-executable.sh", "echo hi\n")
    ralph.git("add", "-A")
    ralph.git("commit", "-qm", "a script without its x bit")
    first = ralph.run("run", "--agent", agent(ralph, WRITES_DONE), "--until", "files:done.txt",
                      "--no-integrity")
    assert first.ret == 0, first
    (ralph.path / "done.txt").unlink()
    state = (ralph.path / ".ralph" / "state.json").read_text()
    iterations = sorted(p.name for p in (ralph.path / ".ralph" / "iterations").iterdir())
    result = ralph.run("run", "--agent", f"cmd:{command}", "--until", "files:done.txt")
    assert result.ret != 0
    _clean_error(result.err, message)
    assert "found before the baseline; nothing was run" in result.err
    # The last session's records are as they were: no baseline, no iteration was written.
    assert (ralph.path / ".ralph" / "state.json").read_text() == state
    assert sorted(p.name for p in (ralph.path / ".ralph" / "iterations").iterdir()) == iterations
    assert "baseline" not in result.out


def test_an_unknown_agent_name_gets_a_did_you_mean(ralph: Ralph) -> None:
    _project(ralph)
    result = ralph.run("run", "--agent", "claud", "--until", "files:done.txt")
    assert result.ret == 2
    _clean_error(result.err, "unknown agent 'claud'; did you mean 'claude'?")


def test_a_misspelt_check_table_gets_a_did_you_mean(ralph: Ralph) -> None:
    ralph.makepyproject("[tool.ralph-verify.checks.lnt]\ntimeout = 5\n")
    result = ralph.run("check", "--until", "files:pyproject.toml")
    assert result.ret == 2
    _clean_error(result.err, "unknown check 'lnt' (did you mean 'lint'?)")


@pytest.mark.parametrize("option", ["--timeout", "--agent-timeout"])
def test_every_duration_option_takes_minutes_and_hours(ralph: Ralph, option: str) -> None:
    _project(ralph)
    args = ("check", "--until", "files:PROMPT.md") if option == "--timeout" else \
        ("run", "--agent", agent(ralph, WRITES_DONE), "--until", "files:done.txt",
         "--no-integrity")
    assert ralph.run(*args, option, "1h30m").ret == 0
    if option == "--timeout":
        assert ralph.run(*args, option, "10m").ret == 0
    bad = ralph.run(*args, option, "10x")
    assert bad.ret == 2
    _clean_error(bad.err, f"argument {option}: expected a duration such as 90m, 2h, 1h30m "
                          "or seconds, got '10x'")


def test_a_cmd_agent_path_is_looked_for_in_the_root_not_where_ralph_verify_was_started(
        ralph: Ralph) -> None:
    _project(ralph)
    ralph.makefile("agent.sh", "#!/bin/sh\necho ok > done.txt\n")
    (ralph.path / "agent.sh").chmod(0o755)
    ralph.git("add", "-A")
    ralph.git("commit", "-qm", "agent")
    (ralph.path / "elsewhere").mkdir()
    done = subprocess.run([sys.executable, "-m", "ralph_verify", "run", "--root", str(ralph.path),
                           "--agent", "cmd:./agent.sh", "--until", "files:done.txt",
                           "--no-integrity"], cwd=ralph.path / "elsewhere", capture_output=True,
                          text=True, timeout=300, env={**os.environ, **ralph.env})
    assert done.returncode == 0, done
    assert (ralph.path / "done.txt").read_text() == "ok\n"


@pytest.mark.parametrize(("where", "key"), [
    ("[tool.ralph-verify]", "timeout"),
    ("[tool.ralph-verify]", "agent-timeout"),
    ("[tool.ralph-verify]", "hook-timeout"),
    ("[tool.ralph-verify.checks.files]", "timeout"),
])
def test_durations_in_pyproject_read_as_on_the_command_line(ralph: Ralph, where: str,
                                                           key: str) -> None:
    ralph.makepyproject(f'{where}\n{key} = "10m"\n')
    assert ralph.run("check", "--until", "files:pyproject.toml").ret == 0
    ralph.makepyproject(f'{where}\n{key} = 90\n')
    assert ralph.run("check", "--until", "files:pyproject.toml").ret == 0
    for bad, said in (('"10x"', "expected a duration such as 90m, 2h, 1h30m or a number of "
                                "seconds (got '10x')"),
                      ("true", "(got True)"), ('"0s"', "greater than"), ("inf", "(got inf)")):
        ralph.makepyproject(f"{where}\n{key} = {bad}\n")
        result = ralph.run("check", "--until", "files:pyproject.toml")
        assert result.ret == 2, (bad, result)
        _clean_error(result.err, f"{key}: ")
        assert said in result.err, (bad, result.err)


def test_p_with_a_file_outside_run_and_fleet_says_what_p_takes(ralph: Ralph) -> None:
    result = ralph.run("check", "-p", "foo", "--until", "files:pyproject.toml")
    assert result.ret == 2
    _clean_error(result.err, "-p foo: -p disables a plugin and takes no:NAME, e.g. -p "
                             "no:cache (see 'ralph-verify plugins'); a prompt file is "
                             "'run -P FILE'")
    assert "deprecated" not in result.err


@pytest.mark.parametrize("command", ["checks", "plugins"])
def test_every_list_command_has_json(ralph: Ralph, command: str) -> None:
    result = ralph.run(command, "--json")
    assert result.ret == 0, result
    rows = json.loads(result.out)
    assert any(row["name"] == ("lint" if command == "checks" else "terminal") for row in rows)
    result = ralph.run(command, "--json", "out/list.json")
    assert result.ret == 0 and result.out == ""
    assert json.loads((ralph.path / "out" / "list.json").read_text()) == rows


def test_colour_follows_color_force_color_and_no_color(ralph: Ralph) -> None:
    args = ("check", "--until", "files:pyproject.toml")
    assert "\x1b[32mPASSED" not in ralph.run(*args).out  # not a terminal
    assert "\x1b[32mPASSED" in ralph.run(*args, "--color", "always").out
    ralph.env["FORCE_COLOR"] = "1"
    assert "\x1b[32mPASSED" in ralph.run(*args).out
    assert "\x1b" not in ralph.run(*args, "--color", "never").out
    ralph.env["NO_COLOR"] = "1"
    assert "\x1b" not in ralph.run(*args).out
    # pytest's words (yes/no) and ruff's (always/never) alike
    assert "\x1b[32mPASSED" in ralph.run(*args, "--color", "yes").out
    assert "\x1b" not in ralph.run(*args, "--color", "no").out
    bad = ralph.run(*args, "--color", "sometimes")
    assert bad.ret == 2 and "argument --color" in bad.err
    assert "expected auto, always (yes) or never (no), got 'sometimes'" in bad.err
    assert "(see 'ralph-verify check --help')" in bad.err


def test_p_means_one_thing_and_the_prompt_is_capital_p(ralph: Ralph) -> None:
    _project(ralph)
    ralph.makefile("TASK.md", "write done.txt\n")
    ralph.git("add", "-A")
    ralph.git("commit", "-qm", "task")
    done = agent(ralph, WRITES_DONE)
    result = ralph.run("run", "--agent", done, "--until", "files:done.txt", "--no-integrity",
                       "-p", "no:breaker", "-P", "TASK.md")
    assert result.ret == 0, result
    assert "deprecated" not in result.err
    assert "write done.txt" in (ralph.path / ".ralph" / "iterations" / "001" /
                                "prompt.md").read_text()
    # The old spelling still works, for one release, and says what to type instead.
    ralph.git("checkout", "-q", "main")
    old = ralph.run("run", "--agent", done, "--until", "files:done.txt", "--no-integrity",
                    "-p", "TASK.md")
    assert old.ret == 0, old
    assert old.err.startswith("note: '-p TASK.md' for the task file is deprecated and goes in "
                              "the next release: use -P TASK.md (or --prompt)"), old.err


class CrashingChecks:
    """A plugin whose check registration crashes."""

    @hookimpl
    def ralph_register_checks(self, registry: CheckRegistry) -> None:
        raise RuntimeError("boom in registration")


def test_a_crash_in_ralph_register_checks_names_the_plugin(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "files:pyproject.toml", plugins=[CrashingChecks()])
    assert result.ret == 2
    _clean_error(result.err, "crashed in ralph_register_checks: RuntimeError: boom in "
                             "registration")
    assert "plugin '(unknown)'" not in result.err and "-p no:" in result.err


def test_status_and_report_work_despite_a_config_error(ralph: Ralph) -> None:
    _project(ralph)
    done = ralph.run("run", "--agent", agent(ralph, WRITES_DONE), "--until", "files:done.txt",
                     "--no-integrity")
    assert done.ret == 0, done
    ralph.makepyproject("[tool.ralph-verify]\nmax-iterations = 'many'\n")
    assert ralph.run("check", "--until", "files:done.txt").ret == 2  # still refused there
    for command in ("status", "report"):
        result = ralph.run(command)
        assert result.ret == 0, result
        assert result.err.startswith("warning: ") and "max-iterations" in result.err
        assert f"(ignored: '{command}' reads .ralph/ only)" in result.err
