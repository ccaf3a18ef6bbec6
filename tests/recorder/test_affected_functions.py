"""Affected tests by function: a change of function bodies runs first only the tests that ran
those functions; any other change of a file, the tests that ran any of its code (real pytest
in a real ``run`` loop with ``cmd:`` agents)."""

from __future__ import annotations

import glob
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.recorder import affected, affected_units
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, history, prompt
from tests.recorder.test_affected import (
    CALC,
    MARK,
    TESTS,
    TEXT,
    _project,
    _ran,
    only_the_full_suite_fails,
)

#: shout, three lines longer (and still right).
GROWN = '''\
def shout(s):
    loud = s.upper()
    if not loud:
        return loud
    return loud
'''


def _edit(*replacements: tuple[str, str]) -> str:
    """Agent code that makes ``replacements`` in text.py."""
    text = 'pathlib.Path("text.py").read_text()'
    for old, new in replacements:
        text += f".replace({old!r}, {new!r})"
    return f'pathlib.Path("text.py").write_text({text})\n'


ONE, ALL = ["test_add", "test_both", "test_shout"], [
    "test_add", "test_both", "test_shout", "test_whisper"]


@pytest.mark.parametrize(("edit", "first"), [
    # shout's body: the tests that ran shout (and test_add, failing in the baseline).
    pytest.param(_edit(("s.upper()", "s.title()")), ONE, id="body"),
    # shout grows three lines: whisper, unchanged, moves down and is still not affected.
    pytest.param(_edit(("def shout(s):\n    return s.upper()\n", GROWN),
                       ("return loud\n", "return loud + '?'\n")), ONE, id="moved-lines"),
    # A module-level statement: every test that ran text.py's code.
    pytest.param(_edit(("s.upper()", "s.title()"), ("def whisper", "LOUD = 1\n\n\ndef whisper")),
                 ALL, id="module-level"),
    # A default (a header): the same, whatever the body.
    pytest.param(_edit(("def shout(s):", "def shout(s, end=''):"),
                       ("s.upper()", "s.title() + end")), ALL, id="default"),
    # A decorator: the same.
    pytest.param(_edit(("def shout(s):", "@staticmethod\ndef shout(s):"),
                       ("s.upper()", "s.title()")), ALL, id="decorator"),
    # A def added: the same.
    pytest.param(_edit(("s.upper()", "s.title()"), ("def whisper", "def hum():\n    pass\n\n\n"
                                                    "def whisper")), ALL, id="def-added"),
])
def test_what_a_change_of_text_py_runs_first(ralph: Ralph, edit: str, first: list[str]) -> None:
    _project(ralph)
    result = ralph.run("run", "--agent", agent(ralph, MARK + edit), "--until", "tests",
                       "--max-iterations", "1", "fix it")
    assert result.ret != 0, result
    baseline, ran = _ran(ralph)
    assert len(baseline) == 5
    assert sorted(ran) == first
    check = history(ralph)[0]["checks"][0]
    assert check["counts"]["partial"] == 1 and check["counts"]["selected"] == len(first)


def test_the_map_follows_functions_that_moved_after_a_full_run(ralph: Ralph) -> None:
    # Iteration 1 grows shout (whisper moves down) and edits data.txt: a non-Python file runs
    # the full suite, which records the map again at the new lines. Iteration 2 breaks
    # whisper's body: only the tests that ran whisper run first, and test_data (failing).
    _project(ralph, calc="def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n",
             **{"tests/test_data": """\
                 import pathlib

                 def test_data():
                     assert pathlib.Path("data.txt").read_text() == "ok"
                 """})
    ralph.makefile("data.txt", "ko")
    grow = _edit((TEXT.split("\n\n\n")[0] + "\n", GROWN))
    break_whisper = _edit(("s.lower()", "s.swapcase() + '.'"))
    body = MARK + f"""\
if N == 1:
    pathlib.Path("data.txt").write_text("still ko")
    {grow}
if N == 2:
    {break_whisper}
"""
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "tests",
                       "--max-iterations", "2", "fix it")
    assert result.ret != 0, result
    baseline, full, second = _ran(ralph)
    assert sorted(full) == sorted(baseline) and len(baseline) == 6
    assert sorted(second) == ["test_both", "test_data", "test_whisper"]
    assert history(ralph)[1]["checks"][0]["counts"]["selected"] == 3


def test_a_test_only_the_full_suite_runs_stops_complete(ralph: Ralph) -> None:
    # test_doc reads twice's docstring: it never called twice, so the map does not tie it to
    # twice's body. The agent fixes twice and edits its docstring: the affected run
    # (test_twice) passes, the full suite fails on test_doc, the loop does not end complete.
    _project(ralph, calc=CALC.replace("a - b", "a + b"),
             twice='def twice(x):\n    """Double x."""\n    return x + x + 1\n',
             **{"tests/test_twice": """\
                 from twice import twice

                 def test_twice():
                     assert twice(2) == 4

                 def test_doc():
                     assert twice.__doc__ == "Double x."
                 """})
    only_the_full_suite_fails(ralph, """\
pathlib.Path("twice.py").write_text(pathlib.Path("twice.py").read_text()
                                    .replace(" + 1", "").replace("Double", "Twice"))
""")


FMT = '''\
def bold(s):
    """
    >>> bold("a")
    '*a*'
    """
    return "*" + s + "*"


def quiet(s):
    """
    >>> quiet("A")
    'a'
    """
    return s.lower()
'''


def test_a_module_whose_doctests_run_runs_them_all_when_it_changes(ralph: Ralph) -> None:
    # bold's body breaks: test_bold (it ran bold) and every doctest of fmt.py run first;
    # test_quiet does not (it ran only quiet).
    _project(ralph, fmt=FMT, **{"tests/test_fmt": """\
        from fmt import bold, quiet

        def test_bold():
            assert bold("a") == "*a*"

        def test_quiet():
            assert quiet("A") == "a"
        """})
    ralph.makepyproject('[tool.ralph-verify.checks.tests]\nselect = "affected"\nrerun = 0\n'
                        'args = ["--doctest-modules"]\n')
    body = MARK + 'pathlib.Path("fmt.py").write_text(pathlib.Path("fmt.py").read_text()' \
        '.replace(\'"*" + s\', \'"_" + s\'))\n'
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "tests",
                       "--max-iterations", "2", "fix it")
    assert result.ret != 0, result
    baseline, first, _ = _ran(ralph)
    assert "test_quiet" in baseline and sorted(first) == ["test_add", "test_bold"]
    check = history(ralph)[0]["checks"][0]
    assert check["counts"]["partial"] == 1 and check["counts"]["selected"] == 4
    assert check["counts"]["failed"] == 3 and check["counts"]["passed"] == 1  # quiet's doctest
    feedback = prompt(ralph, 2)
    for failed in ("fmt.py::fmt.bold", "tests/test_calc.py::test_add",
                   "tests/test_fmt.py::test_bold"):
        assert failed in feedback


BASE = '''\
import functools

LIMIT = 3


class Box:
    size = 1

    def grow(self, n=1):
        def step(x):
            return x + 1
        return step(n)

    @property
    def area(self):
        return self.size * self.size


def twice(x):
    # a comment
    return x * 2
'''


@pytest.mark.parametrize(("old", "new", "changed", "why"), [
    ("# a comment", "# another comment", [], ""),
    ("def twice(x):", "\n\n\ndef twice(x):", [], ""),
    ("return x * 2", "return x * 3", ["twice"], ""),
    ("return x + 1", "return x + 2", ["Box.grow"], ""),  # nested: its enclosing unit
    ("self.size * self.size", "self.size ** 2", ["Box.area"], ""),
    ("size = 1", "size = 2", [], "a module-level or class-level statement changed"),
    ("LIMIT = 3", "LIMIT = 4", [], "a module-level or class-level statement changed"),
    ("n=1", "n=2", [], "the header of Box.grow changed"),
    ("@property", "@functools.cached_property", [], "the header of Box.area changed"),
    ("def twice(x):", "def double(x):", [], "def double was added"),
    ("def twice(x):", "def twice(x", [], "does not parse"),
])
def test_which_units_a_change_touches(old: str, new: str, changed: list[str], why: str) -> None:
    before = affected_units.parse(BASE)
    after = affected_units.parse(BASE.replace(old, new))
    assert before is not None
    if after is None:
        assert why == "does not parse"
        return
    keys, reason = affected_units.bodies_changed(before, after)
    assert keys == changed
    assert reason.startswith(why)


@pytest.mark.parametrize(("select", "version", "chosen"), [
    ("auto", "3.12.1", True), ("auto", "3.13.0", True), ("auto", "4.0", True),
    ("auto", "3.11.7", False), ("auto", "3.10.14", False), ("auto", "3.8.18", False),
    ("auto", "version unknown", False),
    ("affected", "3.11.7", True), ("affected", "3.7.17", True), ("all", "3.13.0", False),
])
def test_auto_runs_the_affected_tests_first_from_python_3_12(
        select: str, version: str, chosen: bool) -> None:
    """``sys.monitoring`` (3.12) records the map; before it only a profiler can."""
    assert affected.selects_affected(select, version) is chosen


def _interpreter(version: tuple[int, int]) -> str:
    """A Python of ``version``: this one, one on PATH, or pyenv's; else the test fails."""
    if sys.version_info[:2] == version:
        return sys.executable
    name = f"python{version[0]}.{version[1]}"
    pattern = f"~/.pyenv/versions/{version[0]}.{version[1]}.*/bin/{name}"
    for candidate in [name, *sorted(glob.glob(os.path.expanduser(pattern)))]:
        try:
            done = subprocess.run([candidate, "-c", "pass"], capture_output=True, check=False)
        except OSError:
            continue
        if done.returncode == 0:
            return candidate
    pytest.fail(f"this test needs {name}: install it (pyenv install {version[0]}.{version[1]}, "
                f"or apt-get install {name}) and put it on PATH")


def _project_python(version: tuple[int, int], tmp_path_factory: pytest.TempPathFactory) -> str:
    """The project's interpreter of ``version``: the suite's own when it is of that version,
    else a virtual environment of that Python with this suite's pytest and coverage (PyPI)."""
    python = _interpreter(version)
    if python == sys.executable:
        return python
    where = tmp_path_factory.mktemp(f"venv-{version[0]}{version[1]}")
    subprocess.run([python, "-m", "venv", str(where)], check=True, capture_output=True)
    bin_python = where / ("Scripts" if os.name == "nt" else "bin") / "python"
    pins = [f"{name}=={importlib.metadata.version(name)}" for name in ("pytest", "coverage")]
    installed = subprocess.run([str(bin_python), "-m", "pip", "install", "-q", *pins],
                               capture_output=True, text=True, check=False)
    assert installed.returncode == 0, installed.stderr[-2000:]
    return str(bin_python)


@pytest.fixture(scope="session")
def python_from_3_12(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A project interpreter with the monitoring API (``sys.monitoring``)."""
    return _project_python(affected.AUTO_FROM, tmp_path_factory)


@pytest.fixture(scope="session")
def python_before_3_12(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A project interpreter without it."""
    return _project_python((3, 11), tmp_path_factory)


def _default_loop(ralph: Ralph, until: str,
                  python: str) -> tuple[list[str], list[str], dict[str, Any]]:
    """A loop with no select setting ("auto") whose project runs on ``python`` and whose agent
    breaks shout: the tests of the baseline and of the iteration, and the iteration's check."""
    ralph.makepyfile(**{"calc": CALC, "text": TEXT, **TESTS})
    ralph.env["RUN_LOG"] = str(ralph.path.parent / "ran.log")
    result = ralph.run("run", "--agent", agent(ralph, MARK + _edit(("s.upper()", "s.title()"))),
                       "--until", until, "--max-iterations", "1", "--python", python, "fix it")
    assert result.ret != 0, result
    baseline, first = _ran(ralph)
    check: dict[str, Any] = history(ralph)[0]["checks"][0]
    return baseline, first, check


@pytest.mark.parametrize("until", ["tests", "tests,coverage>=0"])
def test_by_default_a_loop_runs_the_affected_tests_first_from_python_3_12(
        ralph: Ralph, until: str, python_from_3_12: str) -> None:
    _, first, check = _default_loop(ralph, until, python_from_3_12)
    # Its failures are re-run once (the flaky check): a test may show twice.
    assert sorted(set(first)) == ONE and check["counts"]["partial"] == 1


def test_before_python_3_12_a_default_loop_runs_the_full_suite_and_says_so(
        ralph: Ralph, python_before_3_12: str) -> None:
    baseline, first, check = _default_loop(ralph, "tests", python_before_3_12)
    # Every test, test_mul (no test of text.py) too: no partial run, and no map.
    assert sorted(set(first)) == sorted(set(baseline)) == sorted([*ALL, "test_mul"])
    assert "partial" not in check["counts"]
    assert not (ralph.path / ".ralph" / affected.MAP_NAME).exists()
    # The user reads why in the option's description (``ralph-verify checks``).
    listing = ralph.run("checks")
    assert listing.ret == 0, listing
    assert "3.12 or later" in " ".join(listing.stdout.str().split())


def test_a_test_no_tracer_followed_is_left_to_the_full_suite_and_said(tmp_path: Path) -> None:
    """A test recorded untraced (every tracer taken) leaves the rest of the map standing."""
    root, session, deps = tmp_path / "project", tmp_path / "session", tmp_path / "deps"
    for folder in (root, session, deps):
        folder.mkdir()
    (root / "calc.py").write_text(CALC)
    (root / "test_calc.py").write_text("from calc import add, mul\n")
    records = [
        {"session": True, "lines": {}, "traced": True},
        {"collect": "test_calc.py", "lines": {}, "traced": True},
        {"id": "test_calc.py::test_add", "files": ["calc.py", "test_calc.py"],
         "lines": {"calc.py": [1]}, "traced": True},
        {"id": "test_calc.py::test_mul", "files": ["test_calc.py"], "lines": {},
         "traced": False},
    ]
    (deps / "deps-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert affected.save(root, session, deps, failing=set())
    (root / "calc.py").write_text(CALC.replace("a - b", "a + b"))
    chosen, why = affected.plan(root, session, ["calc.py"])
    assert chosen is not None, why
    assert chosen.ids == ["test_calc.py::test_add"]
    assert chosen.note() == "1 test no tracer could follow run in the full suite only"
