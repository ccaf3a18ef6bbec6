"""``check`` leaves out the built-ins that act only in a loop, a fleet or a command of their
own (``NOT_FOR_CHECK``): what it runs, reads, accepts and reports is what it was with every
built-in. These tests hold each left-out plugin to that, with every built-in loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pluggy
import pytest

from ralph_verify.startup import (
    BUILTIN_PLUGINS,
    NOT_FOR_CHECK,
    builtin_plugin_manager,
    collect_options,
)
from ralph_verify.testing import Ralph
from tests.test_startup import write_plugin_dist

#: Hooks a check calls that a left-out plugin implements, and why it does nothing there.
CALLED_AND_IDLE = {
    ("commands.agent_hook", "ralph_cmdline_main"): "wraps only the `hook` command",
    ("commands.run", "ralph_configure"): "reads the task of `run` only",
    ("commands.tasks", "ralph_configure"): "loads a task list for `run` and `start` only",
    ("notify", "ralph_configure"): "stashes the notifier a task list's loop uses",
    ("budget", "ralph_configure"): "reads max-time for loop and start commands only",
    ("sandbox", "ralph_configure"): "probes bubblewrap for loop commands only",
    ("agenthook", "ralph_configure"): "installs the guard for loop commands only",
}


def test_the_left_out_plugins_are_built_ins() -> None:
    assert NOT_FOR_CHECK.issubset(BUILTIN_PLUGINS)


def test_check_takes_no_option_and_no_check_of_a_left_out_plugin() -> None:
    pm = builtin_plugin_manager()
    parser = collect_options(pm)
    check = parser.commands["check"]
    assert check.plugin not in NOT_FOR_CHECK
    for option in parser.options:
        if option.plugin in NOT_FOR_CHECK:
            assert not set(option.scopes) & set(check.scopes), option
    left_out = {id(pm.get_plugin(name)) for name in NOT_FOR_CHECK}
    assert not [impl for impl in pm.hook.ralph_register_checks.get_hookimpls()
                if id(impl.plugin) in left_out]
    # The same options, in the same order, from the plugins check has.
    mine = collect_options(builtin_plugin_manager(command="check"))
    assert [(o.flags, o.plugin) for o in mine.options if set(o.scopes) & set(check.scopes)] \
        == [(o.flags, o.plugin) for o in parser.options if set(o.scopes) & set(check.scopes)]
    assert [s.key for s in mine.settings.values()] == [
        s.key for s in parser.settings.values() if s.plugin not in NOT_FOR_CHECK]


@pytest.mark.parametrize("args", [
    ["check", "--until", "tests,lint,files:app.py"],
    ["check", "--until", "tests", "--json", "--junitxml", "out.xml", "--github", "-v"],
    ["check", "--until", "tests,lint", "--baseline", "HEAD", "-q"],
    ["check", "--until", "nothing-like-it"],
])
def test_a_check_calls_no_hook_of_a_left_out_plugin(
        args: list[str], ralph: Ralph, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    ralph.makepyfile(app="import os\n", test_app="def test_app():\n    assert 1 == 2\n")
    ralph.git_init()
    monkeypatch.chdir(ralph.path)
    pm = builtin_plugin_manager()  # every built-in, to see which would be called
    called: set[tuple[str, str]] = set()

    def before(hook_name: str, hook_impls: Sequence[pluggy.HookImpl],
               kwargs: Mapping[str, Any]) -> None:
        # An object a plugin registers while it runs (a reporter) counts as that plugin's.
        called.update((impl.plugin_name if impl.plugin_name in BUILTIN_PLUGINS
                       else type(impl.plugin).__module__.removeprefix("ralph_verify.plugins."),
                       hook_name) for impl in hook_impls)

    pm.add_hookcall_monitoring(before, lambda *a: None)
    code = pm.hook.ralph_cmdline_main(args=args, plugins=[], pluginmanager=pm)
    assert code in (1, 2), capsys.readouterr().err
    assert ("core", "ralph_verify_check") in called or args[-1] == "nothing-like-it"
    # What they declare is held by the test above.
    assert {(plugin, hook) for plugin, hook in called if plugin in NOT_FOR_CHECK
            and hook != "ralph_addoption"} <= set(CALLED_AND_IDLE)


def test_check_imports_no_left_out_plugin(ralph: Ralph) -> None:
    ralph.makepyfile(app="def double(x: int) -> int:\n    return 2 * x\n")
    code = ("import sys\nfrom ralph_verify.cli import main\nmain(['check', '--until', 'lint'])\n"
            "print(sorted(m[len('ralph_verify.plugins.'):] for m in sys.modules\n"
            "             if m.startswith('ralph_verify.plugins.')))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ralph.path, capture_output=True,
                          text=True, check=True)
    loaded = set(eval(proc.stdout.strip().splitlines()[-1]))
    assert "ruff" in loaded and "commands.check" in loaded
    assert not loaded & NOT_FOR_CHECK
    # Any other command has every built-in.
    code = code.replace("['check', '--until', 'lint']", "['status']")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ralph.path, capture_output=True,
                          text=True, check=True)
    assert set(eval(proc.stdout.strip().splitlines()[-1])) >= set(BUILTIN_PLUGINS)


def test_a_table_key_of_a_left_out_plugin_is_judged_as_before(ralph: Ralph) -> None:
    ralph.makepyfile(app="def double(x: int) -> int:\n    return 2 * x\n")
    ralph.makepyproject("[tool.ralph-verify]\nuntil = 'lint'\nmax-iterations = 3\n"
                        "notify = ['desktop']\n")
    assert ralph.run("check").ret == 0
    ralph.makepyproject("[tool.ralph-verify]\nuntil = 'lint'\nmax-iterations = 'many'\n")
    result = ralph.run("check")
    assert result.ret == 2, result
    assert "[tool.ralph-verify] max-iterations" in result.err
    ralph.makepyproject("[tool.ralph-verify]\nuntil = 'lint'\nmax-iteratons = 3\n")
    result = ralph.run("check")
    assert result.ret == 2, result
    assert "max-iteratons" in result.err and "max-iterations" in result.err


def test_a_third_party_plugin_named_as_a_left_out_built_in_stays_out(
        ralph: Ralph, tmp_path: Path) -> None:
    # The built-in owns its name whether check registered it or not, as before.
    site = tmp_path / "site"
    site.mkdir()
    write_plugin_dist(site)
    entry_points = site / "ralph_verify_hello-0.0.1.dist-info" / "entry_points.txt"
    entry_points.write_text("[ralph_verify]\nnotify = ralph_verify_hello\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-m", "ralph_verify", "check", "--until", "hello"],
                          cwd=ralph.path, capture_output=True, text=True, env=env)
    assert proc.returncode == 2, proc.stderr
    assert "hello" in proc.stderr
