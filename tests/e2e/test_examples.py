"""The runnable examples under ``examples/`` do what their READMEs say."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PLUGIN_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "writing-a-plugin"

APP_WITH_FOUR_TODOS = """\
# TODO: split this module
def area(width, height):
    return width * height  # TODO check for negative sizes


def perimeter(width, height):  # FIXME: negative sizes
    # TODO: units
    # TODO
    return 2 * (width + height)
"""


@pytest.fixture
def todo(ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> Ralph:
    """The ``ralph`` project with the example plugin loaded the README's no-install way."""
    monkeypatch.syspath_prepend(str(PLUGIN_EXAMPLE))
    ralph.env["RALPH_VERIFY_PLUGINS"] = "ralph_verify_todo"
    ralph.makepyfile(app=APP_WITH_FOUR_TODOS)
    return ralph


def test_todo_check_fails_over_its_threshold(todo: Ralph) -> None:
    result = todo.run("check", "--until", "todo<=3", "--json")
    assert result.ret == 1, result
    (check,) = result.json()["checks"]
    assert (check["status"], check["metric"]) == ("failed", 4)
    assert check["summary"] == "4 TODO comments, wanted <=3"
    assert [(f["location"], f["message"]) for f in check["failures"]] == [
        ("app.py:1", "TODO left: split this module"),
        ("app.py:3", "TODO left: check for negative sizes"),
        ("app.py:7", "TODO left: units"),
        ("app.py:8", "TODO left: "),
    ]


def test_todo_check_passes_within_its_threshold_and_options_apply(todo: Ralph) -> None:
    result = todo.run("check", "--until", "todo<=4")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["PASSED  todo<=4 4 TODO comments  (*s)"])

    todo.makepyproject('[tool.ralph-verify.checks.todo]\nmarker = "FIXME"\n')
    bare = todo.run("check", "--until", "todo")
    assert bare.ret == 1, bare
    bare.stdout.fnmatch_lines(["FAILED  todo 1 FIXME comment, wanted ==0  (*s)"])

    todo.makepyproject("[tool.ralph-verify.checks.todo]\nmarkers = 3\n")
    bad = todo.run("check", "--until", "todo")
    assert bad.ret == 2
    assert "unknown key 'markers' (did you mean 'marker'?)" in bad.err


def test_wrapper_wraps_every_check(todo: Ralph) -> None:
    result = todo.run("check", "--until", "files:app.py,todo<=9", "--json")
    assert result.ret == 0, result
    for check in result.json()["checks"]:
        assert isinstance(check["counts"]["wall_ms"], int), check


def test_listed_by_checks_and_plugins_and_disabled_by_name(todo: Ralph) -> None:
    checks = todo.run("checks")
    checks.stdout.fnmatch_lines(["todo[[]<op>N]  [[]plugin ralph_verify_todo]",
                                 "    limit the TODO comments left in the code (todo<=3)"])
    todo.env["COLUMNS"] = "10000"  # one line each
    plugins = todo.run("plugins")
    plugins.stdout.fnmatch_lines(["ralph_verify_todo  *  ralph_register_checks, "
                                  "ralph_verify_check"])
    disabled = todo.run("-p", "no:ralph_verify_todo", "check", "--until", "todo<=3")
    assert disabled.ret == 2
    assert "unknown check 'todo'" in disabled.err


def test_pyproject_declares_the_entry_point() -> None:
    # The installed route (pip install examples/writing-a-plugin) is exercised by
    # tests/plugins/test_third_party_plugin.py; here only that the wiring names the module.
    project = tomllib.loads((PLUGIN_EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["ralph_verify"] == {"todo": "ralph_verify_todo"}
    assert (PLUGIN_EXAMPLE / "ralph_verify_todo.py").is_file()


def test_the_plugin_example_declares_what_it_imports() -> None:
    """Every package the example imports, bar the standard library and its host, is in its
    ``dependencies``: installed on its own, it must not lean on what ralph-verify brings."""
    import ast

    tree = ast.parse((PLUGIN_EXAMPLE / "ralph_verify_todo.py").read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and not node.level}
    needed = imported - set(sys.stdlib_module_names) - {"ralph_verify"}
    assert needed == {"pydantic"}
    project = tomllib.loads((PLUGIN_EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    declared = {dep.split(">")[0].split("=")[0].strip() for dep in
                project["project"]["dependencies"]}
    assert needed <= declared
