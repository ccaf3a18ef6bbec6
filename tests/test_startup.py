"""`ralph-verify --help`, `--version` and a one-check `check` stay fast: nothing heavy is
imported. Not a timed test: what is imported is what costs, and it is exact."""

from __future__ import annotations

import argparse
import fnmatch
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from ralph_verify.startup import builtin_plugin_manager, collect_options
from ralph_verify.testing import Ralph

HEAVY = ("junitparser", "coverage", "xml.etree.ElementTree", "mypy", "http.server", "asyncio",
         # pydantic (0.1-0.2 s with one model built): settings and check options are named
         # lazily and built only when a table is read or a check reads its options.
         "pydantic", "annotated_types",
         # What only some commands need, imported when they run (each some 5-20 ms):
         "urllib.request", "xml.sax", "ralph_verify.guard.decide", "ralph_verify.loop.recovery",
         "ralph_verify.fleet.executor", "ralph_verify.fleet.job", "ralph_verify.agents.retry",
         "tomllib", "configparser", "concurrent.futures", "html", "secrets",
         # The agents (only run needs them).
         "ralph_verify.agents")
#: What a ``check --until lint`` on a project without options still never needs: besides
#: the above, what only other checks, commands or a loop use (their plugins import it
#: when they run: each some 1-3 ms, dataclasses and patterns built at import).
HEAVY_FOR_LINT = (*(name for name in HEAVY if name != "tomllib"), "logging",
                  "ralph_verify.junit.read",
                  "ralph_verify.recorder.read", "ralph_verify.plugins.pytest_run.shared",
                  "ralph_verify.checks.fingerprint", "ralph_verify.config.scaffold",
                  "ralph_verify.project.detect", "ralph_verify.loop.session",
                  # only an error's traceback needs it
                  "traceback",
                  # a virtual environment's scripts folder is known without it
                  "sysconfig",
                  # the integrity plugin's records (their dataclasses: some 7 ms), and the
                  # frozen oracle: a session's
                  "ralph_verify.records.integrity", "ralph_verify.records.plugin_state",
                  "ralph_verify.plugins.pytest_run.oracle")


def imported(args: list[str], cwd: Path, watched: tuple[str, ...]) -> list[str]:
    """Which of ``watched`` ``ralph-verify ARGS`` imports, in a fresh interpreter."""
    code = (
        "import sys\n"
        "from ralph_verify.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {watched!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=cwd, env=os.environ.copy())
    return [line for line in proc.stdout.strip().splitlines()][-1:]


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["check", "--help"]])
def test_startup_imports_nothing_heavy(args: list[str], tmp_path: Path) -> None:
    assert imported(args, tmp_path, HEAVY) == ["[]"]


def test_a_lint_check_imports_no_pydantic(ralph: Ralph) -> None:
    # ruff alone takes some 10 ms here: the check must not add pydantic's 0.1-0.2 s to it.
    ralph.makepyfile(app="def double(x: int) -> int:\n    return 2 * x\n")
    assert imported(["check", "--until", "lint"], ralph.path, HEAVY_FOR_LINT) == ["[]"]


def test_a_virtual_environments_tools_are_found_where_sysconfig_says() -> None:
    # find_tool names a virtual environment's scripts folder without asking sysconfig.
    import sysconfig

    from ralph_verify.checks.api import VerifyContext

    assert sys.prefix != sys.base_prefix, "the suite runs in a virtual environment"
    folders = list(VerifyContext._tool_folders(cast(Any, SimpleNamespace(
        python=lambda: "/nowhere/bin/python"))))
    assert folders[1] == Path(sysconfig.get_path("scripts"))


def test_a_failing_test_imports_no_pydantic_without_a_table(ralph: Ralph) -> None:
    # Every failing iteration of a loop reads rerun and flaky: their defaults, not a model.
    ralph.makepyfile(test_one="def test_one():\n    assert 1 == 2\n")
    assert imported(["check", "--until", "tests"], ralph.path, ("pydantic",)) == ["[]"]


def test_a_check_table_is_still_validated_and_used(ralph: Ralph) -> None:
    # The lazy options are the same options: a table is read, checked and applied.
    ralph.makepyfile(app="import os\n")
    ralph.makepyproject("[tool.ralph-verify.checks.lint]\nargs = ['--select', 'E']\n")
    assert ralph.run("check", "--until", "lint").ret == 0  # F401 not selected
    ralph.makepyproject("[tool.ralph-verify.checks.lint]\nargz = []\n")
    result = ralph.run("check", "--until", "lint")
    assert result.ret == 2, result
    assert "unknown key 'argz' (did you mean 'args'?)" in result.err
    ralph.makepyproject("[tool.ralph-verify]\njobs = 0\n")
    result = ralph.run("check", "--until", "lint")
    assert result.ret == 2, result
    assert "[tool.ralph-verify] jobs: input should be greater than or equal to 1" in result.err


def write_plugin_dist(site: Path) -> None:
    """An installed distribution with a ``ralph_verify`` entry point (a plugin adding a check)."""
    (site / "ralph_verify_hello.py").write_text(
        "from ralph_verify import CheckType, Check, Status, hookimpl\n"
        "class Hello(Check):\n"
        "    def run(self, ctx):\n"
        "        return self.result(Status.PASSED, 'hello')\n"
        "@hookimpl\n"
        "def ralph_register_checks(registry):\n"
        "    registry.add(CheckType(name='hello', factory=Hello, help='says hello'))\n")
    info = site / "ralph_verify_hello-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ralph-verify-hello\n"
                                   "Version: 0.0.1\n")
    (info / "entry_points.txt").write_text("[ralph_verify]\nhello = ralph_verify_hello\n")


def test_a_plugin_installed_is_loaded_with_its_distribution_and_gone_once_removed(
        ralph: Ralph, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()

    def plugins() -> str:
        env = {**os.environ, "PYTHONPATH": str(site)}
        proc = subprocess.run([sys.executable, "-m", "ralph_verify", "plugins"],
                              cwd=ralph.path, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert "hello" not in plugins()
    write_plugin_dist(site)
    assert "hello  [ralph-verify-hello 0.0.1]  ralph_register_checks" in plugins()
    for path in sorted((site / "ralph_verify_hello-0.0.1.dist-info").iterdir()):
        path.unlink()
    (site / "ralph_verify_hello-0.0.1.dist-info").rmdir()
    assert "hello" not in plugins()


def write_dist(site: Path, name: str, module: str) -> None:
    """An installed distribution ``ralph-verify-NAME 0.0.1`` whose ``ralph_verify`` entry
    point ``NAME`` is a module of text ``module``."""
    (site / f"ralph_verify_{name}.py").write_text(module)
    info = site / f"ralph_verify_{name}-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: ralph-verify-{name}\n"
                                   "Version: 0.0.1\n")
    (info / "entry_points.txt").write_text(f"[ralph_verify]\n{name} = ralph_verify_{name}\n")


@pytest.mark.parametrize(("module", "error"), [
    ("import no_such_module_anywhere\n",
     "ERROR: plugin 'bad' (from ralph-verify-bad 0.0.1) failed to import: ModuleNotFoundError: "
     "No module named 'no_such_module_anywhere'; fix or uninstall it, or run with -p no:bad "
     "(or RALPH_VERIFY_DISABLE_PLUGIN_AUTOLOAD=1 to load no third-party plugin)"),
    ("from ralph_verify import hookimpl\n@hookimpl\ndef ralph_configure(config, extra):\n"
     "    pass\n",
     "ERROR: plugin 'bad' (from ralph-verify-bad 0.0.1) is invalid: Plugin 'bad' for hook "
     "'ralph_configure'*Argument(s) {'extra'} are declared in the hookimpl*"),
])
def test_a_broken_plugin_is_named_with_its_distribution(ralph: Ralph, tmp_path: Path,
                                                        module: str, error: str) -> None:
    site = tmp_path / "site"
    site.mkdir()
    write_dist(site, "bad", module)
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-m", "ralph_verify", "checks"], cwd=ralph.path,
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("ERROR: ") and "Traceback" not in proc.stderr, proc.stderr
    assert fnmatch.fnmatch(proc.stderr.strip(), error), proc.stderr
    around = subprocess.run([sys.executable, "-m", "ralph_verify", "-p", "no:bad", "plugins"],
                            cwd=ralph.path, capture_output=True, text=True, env=env)
    assert around.returncode == 0, around.stderr
    assert "bad  (disabled with -p no:bad)" in around.stdout


def test_the_pytest_plugins_are_compiled_once_per_interpreter(ralph: Ralph,
                                                              tmp_path: Path) -> None:
    # Under coverage our pytest plugins run as sourceless .pyc files compiled by the
    # project's Python: a Python start before pytest's, once per interpreter. The project's
    # interpreter is a copy of the binary (another interpreter for all we know) that sees
    # our packages and logs each of its starts.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--copies", "--without-pip", str(venv)],
                   check=True)
    log = tmp_path / "started.log"
    (site,) = venv.glob("lib/python*/site-packages")
    (site / "ours.pth").write_text(sysconfig.get_path("purelib") + "\n")
    (site / "log.pth").write_text(
        f"import os, sys; open({str(log)!r}, 'a').write(f'{{os.getpid()}} {{sys.argv}}\\n')\n")
    python = str(venv / "bin" / "python")
    ralph.makepyfile(app="def double(x):\n    return 2 * x\n",
                     test_app="from app import double\n\n\ndef test_double():\n"
                              "    assert double(2) == 4\n",
                     conftest="def pytest_sessionstart(session):\n"
                              "    open('sessions.txt', 'a').write('session\\n')\n")

    def compiles() -> int:
        # (a venv's site-packages may be read twice, through lib64: one start, one pid)
        return len({line for line in log.read_text().splitlines() if "_source.py" in line})

    for _ in range(2):  # --no-cache: pytest runs each time
        result = ralph.run("check", "--until", "tests,coverage>=50", "--python", python,
                           "--no-cache")
        assert result.ret == 0, result
        result.stdout.fnmatch_lines(["PASSED*coverage*100%*"])
    assert (ralph.path / "sessions.txt").read_text() == "session\n" * 2
    assert compiles() == 1
    # The re-run of a failed test (not under coverage) finds the kept plugins too: two
    # pytest sessions, not one and a re-run that could not load our plugin.
    ralph.makepyfile(test_broken="def test_broken():\n    assert False\n")
    result = ralph.run("check", "--until", "tests,coverage>=0", "--python", python)
    assert result.ret == 1, result
    result.stdout.fnmatch_lines(["FAILED*tests*1 failed, 1 passed*"])
    assert (ralph.path / "sessions.txt").read_text() == "session\n" * 4
    assert compiles() == 1
    # A damaged kept plugin is found and compiled again, not loaded.
    (kept,) = Path(ralph.env["RALPH_VERIFY_CACHE_DIR"]).glob(
        "pytest-plugins/*/ralph_verify_recorder.pyc")
    kept.write_bytes(kept.read_bytes()[:40])
    ralph.makepyfile(test_broken="def test_broken():\n    assert True\n")
    result = ralph.run("check", "--until", "tests,coverage>=50", "--python", python,
                       "--no-cache")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["PASSED*tests*2 passed*"])
    assert compiles() == 2


def test_a_command_line_builds_its_commands_parser_alone(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Each command's argparse parser costs some 0.5 ms: `check ...` builds the top level's
    # and check's; a help that lists every command (-h before the command) still does.
    parser = collect_options(builtin_plugin_manager())
    built: list[str] = []
    init = argparse.ArgumentParser.__init__

    def counted(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        built.append(str(kwargs.get("prog")))
        init(self, *args, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "__init__", counted)
    namespace = parser.parse(["check", "--until", "lint", "--timeout", "5"])
    assert (namespace.command, namespace.until, namespace.timeout) == ("check", "lint", 5.0)
    assert built == ["ralph-verify", "ralph-verify check"]
    with pytest.raises(SystemExit):
        parser.parse(["-h", "check"])
    listed = capsys.readouterr().out
    assert len(parser.commands) > 10
    assert all(f"    {name}" in listed for name in parser.commands), listed



#: What a verification never needs before its pytest starts: readers of pytest's output
#: (and their dataclasses and patterns) are imported once pytest has started.
BEFORE_PYTEST = ("ralph_verify.junit.read", "ralph_verify.plugins.pytest_run.oracle",
                 "ralph_verify.records.integrity", "ralph_verify.records.plugin_state",
                 "ralph_verify.recorder.read", "ralph_verify.checks.fingerprint",
                 "xml.etree.ElementTree", "pydantic", "secrets", "hmac")


def test_nothing_only_the_results_need_is_imported_before_pytest_starts(ralph: Ralph) -> None:
    ralph.makepyfile(test_one="def test_one():\n    assert 1 == 2\n")
    code = (
        "import subprocess, sys\n"
        "seen = []\n"
        "start = subprocess.Popen._execute_child\n"
        "def spy(self, args, *rest, **kwargs):\n"
        "    if 'pytest' in args and not seen:\n"
        f"        seen.append(sorted(m for m in {BEFORE_PYTEST!r} if m in sys.modules))\n"
        "    return start(self, args, *rest, **kwargs)\n"
        "subprocess.Popen._execute_child = spy\n"
        "from ralph_verify.cli import main\n"
        "code = main(['check', '--until', 'tests', '--no-cache'])\n"
        "print(code, seen)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ralph.path, env=os.environ.copy())
    assert proc.stdout.strip().splitlines()[-1] == "1 [[]]", proc.stdout + proc.stderr
