"""The third-party path end to end: ``plugins/ralph-verify-diffcover`` pip-installed into a
fresh virtual environment next to ralph-verify and used through ``--until diffcover>=90``.

The venv is built once per module (about ten seconds with pip's cache warm). Behaviours
that need no installation (diff-cover's JSON read from recorded files, the error
results) load the plugin in-process through ``RALPH_VERIFY_PLUGINS`` instead.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import time
import venv
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ralph_verify.testing import Ralph, RunResult

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugins" / "ralph-verify-diffcover"
EXAMPLE = ROOT / "examples" / "writing-a-plugin"
DATA = Path(__file__).parents[1] / "data" / "diffcover"
BIN = "Scripts" if os.name == "nt" else "bin"
PLUGIN_VERSION = re.search(r'__version__ = "([^"]+)"',  # type: ignore[union-attr]  # the file defines it
                           (PLUGIN / "ralph_verify_diffcover" / "__init__.py").read_text()).group(1)
#: Variables of the test run that must not reach the venv's ralph-verify.
_SCRUBBED = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "RALPH_VERIFY_PLUGINS",
             "RALPH_VERIFY_DISABLE_PLUGIN_AUTOLOAD")


@dataclass
class Venv:
    """A virtual environment with ralph-verify, the diffcover plugin and the example plugin."""

    path: Path

    @property
    def python(self) -> str:
        return str(self.path / BIN / "python")

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a shell with this venv activated, plus ``extra``."""
        env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
        env["VIRTUAL_ENV"] = str(self.path)
        env["PATH"] = os.pathsep.join((str(self.path / BIN), env.get("PATH", "")))
        env.update(extra)
        return env

    def ralph_verify(self, project: Path, *args: str, **env: str) -> RunResult:
        """Run the venv's ``ralph-verify`` console script in ``project``."""
        started = time.perf_counter()
        proc = subprocess.run([str(self.path / BIN / "ralph-verify"), *args], cwd=project,
                              env=self.env(**env), capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=300, check=False)
        return RunResult(proc.returncode, proc.stdout, proc.stderr,
                         time.perf_counter() - started)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """ralph-verify, the diffcover plugin and the example plugin, installed by pip (not editable).

    pip's own download and wheel cache (``PIP_CACHE_DIR``, default ``~/.cache/pip``)
    makes a re-run take seconds.
    """
    env_dir = tmp_path_factory.mktemp("third-party") / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    # A copy, so that edits made meanwhile in the checkout cannot break the build.
    source = tmp_path_factory.mktemp("src") / "ralph-verify"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv*", ".git", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache",
        ".pytest_cache", "benchmarks", "node_modules", ".ralph", "tests"))
    targets = [source, source / "plugins" / "ralph-verify-diffcover",
               source / "examples" / "writing-a-plugin"]
    subprocess.run([str(env_dir / BIN / "python"), "-m", "pip", "install", "-q",
                    *map(str, targets)], check=True, timeout=600,
                   env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    return Venv(env_dir)


CALC_MAIN = """\
def add(a, b):
    return a + b
"""
CALC_FEATURE = CALC_MAIN + """\


def sub(a, b):
    return a - b


def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


def describe(value):
    sign = "negative" if value < 0 else "positive"
    size = "big" if abs(value) > 100 else "small"
    return f"{size} {sign}"
"""
UTIL = """\
def double(x):
    return 2 * x


def triple(x):
    return 3 * x
"""


def make_feature_branch(ralph: Ralph) -> None:
    """``main`` with add(); a branch adding covered and uncovered lines, committed or not."""
    ralph.makefile(".gitignore", "__pycache__/\n.pytest_cache/\n")
    ralph.makepyfile(calc=CALC_MAIN, **{"tests/test_calc": """\
        from calc import add


        def test_add():
            assert add(1, 2) == 3
        """})
    ralph.git_init()
    ralph.git("checkout", "-q", "-b", "feature")
    ralph.makepyfile(calc=CALC_FEATURE)
    ralph.makepyfile(**{"tests/test_calc": """\
        from calc import add, clamp, sub


        def test_add():
            assert add(1, 2) == 3


        def test_sub():
            assert sub(3, 2) == 1


        def test_clamp_inside():
            assert clamp(5, 0, 10) == 5
        """})
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", "feature")
    # Work not committed yet: a new untracked module and an unstaged test change.
    ralph.makepyfile(util=UTIL)
    with (ralph.path / "tests" / "test_calc.py").open("a") as handle:
        handle.write("\n\ndef test_double():\n    from util import double\n\n"
                     "    assert double(2) == 4\n")


def diff_cover_by_hand(python: str, project: Path, scratch: Path) -> dict[str, Any]:
    """What diff-cover itself says about the same tree, run the documented way."""
    data, xml, report = scratch / "cov.data", scratch / "coverage.xml", scratch / "dc.json"
    for argv in ([python, "-m", "coverage", "run", f"--data-file={data}", "-m", "pytest", "-q"],
                 [python, "-m", "coverage", "xml", f"--data-file={data}", "-o", str(xml)],
                 [python, "-m", "diff_cover.diff_cover_tool", str(xml), "--compare-branch=main",
                  "--include-untracked", "--total-percent-float", f"--format=json:{report}"]):
        subprocess.run(argv, cwd=project, capture_output=True, check=False, timeout=120)
    result: dict[str, Any] = json.loads(report.read_text())
    return result


# -- through a fresh virtual environment ------------------------------------------------


@pytest.mark.slow
def test_installed_plugin_is_listed_with_its_version(installed: Venv, ralph: Ralph) -> None:
    plugins = installed.ralph_verify(ralph.path, "plugins", COLUMNS="10000")  # one line each
    assert plugins.ret == 0, plugins
    plugins.stdout.fnmatch_lines([
        f"diffcover  ?ralph-verify-diffcover {PLUGIN_VERSION}?  ralph_register_checks",
        "todo  ?ralph-verify-todo 0.1.0?  ralph_register_checks, ralph_verify_check",
    ], consecutive=False)
    checks = installed.ralph_verify(ralph.path, "checks")
    assert checks.ret == 0, checks
    checks.stdout.fnmatch_lines(["diffcover[[]:ARG][[]<op>N]  ?plugin diffcover?",
                                 "*lines changed since a git ref*",
                                 "*checks.diffcover] compare-branch: *"])


@pytest.mark.slow
def test_verdict_and_metric_agree_with_diff_cover(installed: Venv, ralph: Ralph,
                                                  tmp_path: Path) -> None:
    make_feature_branch(ralph)

    result = installed.ralph_verify(ralph.path, "check", "--until", "diffcover>=90", "--json")
    assert result.ret == 1, result
    (check,) = result.json()["checks"]
    expected = diff_cover_by_hand(installed.python, ralph.path, tmp_path)
    assert check["status"] == "failed"
    assert check["metric"] == expected["total_percent_covered"] < 90
    # wall_ms: the example plugin, installed too, wraps every check (ralph_verify_check).
    assert check["counts"] == {"changed_lines": expected["total_num_lines"],
                               "uncovered_lines": expected["total_num_violations"],
                               "wall_ms": check["counts"]["wall_ms"]}
    stats = expected["src_stats"]
    assert stats["calc.py"]["violation_lines"] == [11, 13, 18, 19, 20]
    assert stats["util.py"]["violation_lines"] == [6]
    assert [(f["location"], f["message"]) for f in check["failures"]] == [
        ("calc.py:11", "changed lines not covered by any test: 11, 13, 18-20"),
        ("util.py:6", "changed lines not covered by any test: 6"),
    ]
    assert "since main" in check["summary"] and "wanted >=90" in check["summary"]
    assert check["failures"][0]["detail"].splitlines() == [
        "   11 |         return low", "   13 |         return high",
        "   18 |     sign = \"negative\" if value < 0 else \"positive\"",
        "   19 |     size = \"big\" if abs(value) > 100 else \"small\"",
        "   20 |     return f\"{size} {sign}\""]

    text = installed.ralph_verify(ralph.path, "check", "--until", "diffcover>=70")
    assert text.ret == 0, text
    text.stdout.fnmatch_lines([f"PASSED  diffcover>=70 {check['metric']:g}% of "
                               f"{expected['total_num_lines']} changed lines covered since main*"])


@pytest.mark.slow
def test_disabled_plugin_leaves_diffcover_unknown(installed: Venv, ralph: Ralph) -> None:
    for args, env in ((("-p", "no:diffcover"), {}),
                      ((), {"RALPH_VERIFY_DISABLE_PLUGIN_AUTOLOAD": "1"})):
        result = installed.ralph_verify(ralph.path, *args, "check", "--until", "diffcover>=90",
                                        **env)
        assert result.ret == 2, result
        assert result.err.startswith("ERROR: bad check spec in --until: unknown check "
                                     "'diffcover'"), result
        assert "Traceback" not in result.err


def write_broken_dist(site: Path) -> None:
    """An installed distribution whose ``ralph_verify`` entry point fails to import."""
    site.mkdir()
    (site / "ralph_verify_broken.py").write_text("import no_such_module_anywhere\n")
    info = site / "ralph_verify_broken-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ralph-verify-broken\n"
                                   "Version: 0.0.1\n")
    (info / "entry_points.txt").write_text("[ralph_verify]\nbroken = ralph_verify_broken\n")


@pytest.mark.slow
def test_plugin_failing_to_import_is_named_in_one_line(installed: Venv, ralph: Ralph,
                                                       tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_broken_dist(site)

    result = installed.ralph_verify(ralph.path, "checks", PYTHONPATH=str(site))
    assert result.ret == 2, result
    assert result.err.count("\n") == 1, result
    assert result.err.startswith(
        "ERROR: plugin 'broken' (from ralph-verify-broken 0.0.1) failed to import: "
        "ModuleNotFoundError: No module named 'no_such_module_anywhere'"), result
    assert "-p no:broken" in result.err

    around = installed.ralph_verify(ralph.path, "-p", "no:broken", "checks",
                                    PYTHONPATH=str(site))
    assert around.ret == 0, around
    around.stdout.fnmatch_lines(["diffcover*"])


# -- in-process: the plugin's module loaded through RALPH_VERIFY_PLUGINS -----------------


@pytest.fixture
def diffcover(ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> Ralph:
    """The ``ralph`` project with the diffcover plugin loaded from the checkout, uninstalled."""
    monkeypatch.syspath_prepend(str(PLUGIN))
    ralph.env["RALPH_VERIFY_PLUGINS"] = "ralph_verify_diffcover.plugin"
    return ralph


def test_not_a_git_repository_is_an_error_result(diffcover: Ralph) -> None:
    result = diffcover.run("check", "--until", "diffcover>=90", "--json")
    assert result.ret == 3, result
    (check,) = result.json()["checks"]
    assert check["status"] == "error"
    assert check["summary"].startswith(f"{diffcover.path} is not inside a git repository: "
                                       "diffcover measures the lines changed since a git ref")


def test_missing_ref_names_the_option_to_set(diffcover: Ralph) -> None:
    diffcover.git_init()
    result = diffcover.run("check", "--until", "diffcover:no-such-branch>=90", "--json")
    assert result.ret == 3, result
    (check,) = result.json()["checks"]
    assert check["status"] == "error"
    assert check["summary"].startswith("git ref 'no-such-branch' (diffcover:no-such-branch in "
                                       "--until) does not exist")
    assert "compare-branch = \"REF\" in [tool.ralph-verify.checks.diffcover]" in check["summary"]

    diffcover.makepyproject('[tool.ralph-verify.checks.diffcover]\ncompare-branch = "develop"\n')
    result = diffcover.run("check", "--until", "diffcover>=90", "--json")
    assert result.ret == 3, result
    assert "'develop' (compare-branch in [tool.ralph-verify.checks.diffcover])" in (
        result.json()["checks"][0]["summary"])

    # The project's own diff-cover configuration is honoured.
    diffcover.makepyproject('[tool.diff_cover]\ncompare_branch = "release"\n')
    result = diffcover.run("check", "--until", "diffcover>=90", "--json")
    assert result.ret == 3, result
    assert "'release' (compare_branch in [tool.diff_cover])" in (
        result.json()["checks"][0]["summary"])


def test_repository_without_a_commit_has_no_default_ref(diffcover: Ralph) -> None:
    diffcover.git_init(commit=False)
    result = diffcover.run("check", "--until", "diffcover")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR   diffcover no branch to compare with: none of "
                                 "origin/main, origin/master, main, master exists*"])


@pytest.mark.slow
def test_no_changed_lines_passes_and_says_so(diffcover: Ralph) -> None:
    diffcover.makepyfile(calc=CALC_MAIN, **{"tests/test_calc": "from calc import add\n\n\n"
                                            "def test_add():\n    assert add(1, 2) == 3\n"})
    diffcover.makefile(".gitignore", "__pycache__/\n.pytest_cache/\n")
    diffcover.git_init()
    result = diffcover.run("check", "--until", "diffcover>=90", "--json")
    assert result.ret == 0, result
    (check,) = result.json()["checks"]
    assert check["summary"] == "no changed lines since main: nothing to cover"
    assert check["metric"] == 100.0


def test_plugins_env_import_error_is_one_line(ralph: Ralph) -> None:
    ralph.env["RALPH_VERIFY_PLUGINS"] = "ralph_verify_no_such_plugin"
    result = ralph.run("checks")
    assert result.ret == 2
    assert result.err == ("ERROR: plugin 'ralph_verify_no_such_plugin' (from RALPH_VERIFY_PLUGINS) "
                          "failed to import: ModuleNotFoundError: No module named "
                          "'ralph_verify_no_such_plugin'; fix it or take it out of "
                          "RALPH_VERIFY_PLUGINS\n")


# -- diff-cover's JSON report, recorded ---------------------------------------------------


@pytest.fixture
def report_module(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(PLUGIN))
    return importlib.import_module("ralph_verify_diffcover.report")


def test_recorded_report_is_read(report_module: ModuleType) -> None:
    report = report_module.parse_report(DATA / "report.json")
    assert (report.measured_lines, report.uncovered_lines, report.changed_lines) == (13, 2, 21)
    assert report.percent == 84.62
    by_path = {f.path: f.uncovered for f in report.files}
    assert by_path == {"tests/test_calc.py": (), "calc.py": (11, 13)}


def test_recorded_report_without_changes(report_module: ModuleType) -> None:
    report = report_module.parse_report(DATA / "no-changes.json")
    assert (report.measured_lines, report.files, report.percent) == (0, (), 100.0)


@pytest.mark.parametrize(("name", "message"), [
    ("truncated.json", "diff-cover JSON report truncated.json is unreadable: "),
    ("wrong-types.json", "diff-cover JSON report wrong-types.json: src_stats['calc.py']."
                         "violation_lines is '11, 13', expected a list of line numbers"),
    ("missing.json", "diff-cover JSON report missing.json was not written"),
])
def test_broken_report_is_a_clear_tool_error(report_module: ModuleType, name: str,
                                             message: str) -> None:
    from ralph_verify.proc.process import ToolError

    with pytest.raises(ToolError) as info:
        report_module.parse_report(DATA / name)
    assert str(info.value).startswith(message)


def test_line_ranges(report_module: ModuleType) -> None:
    assert report_module.line_ranges([30, 12, 13, 14, 15]) == "12-15, 30"
    assert report_module.line_ranges([7]) == "7"
    assert report_module.line_ranges([]) == ""

