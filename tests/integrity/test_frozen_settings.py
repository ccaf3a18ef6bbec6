"""ruff and mypy judge with the settings of the session's start: with integrity off, so that
nothing but the frozen settings decides, no settings edit turns failing lint or types green.
Real ruff and mypy, one real ``run`` iteration each, in a git repository (the session's
recovery point is its start)."""

from __future__ import annotations

import json

import pytest

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, state

LINTED = "import os\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n"
TYPED = "def add(a: int, b: int) -> int:\n    return str(a + b)\n"
PYPROJECT = '[tool.ruff.lint]\nselect = ["E", "F"]\n\n[tool.mypy]\nstrict = true\n'
#: Files the agent writes (appended to with "+"), and the check it means to turn green.
EDITS: dict[str, tuple[str, dict[str, str]]] = {
    "pyproject ignore": ("lint", {"+pyproject.toml": '\n[tool.ruff.lint.per-file-ignores]\n'
                                                     '"pkg/*" = ["F401"]\n'}),
    "sub-folder ruff.toml": ("lint", {"pkg/ruff.toml": '[lint]\nselect = ["E"]\n'}),
    "root ruff.toml": ("lint", {"ruff.toml": '[lint]\nselect = ["E"]\n'}),
    ".gitignore": ("lint", {".gitignore": "pkg/lint.py\n"}),
    "mypy.ini": ("types", {"mypy.ini": "[mypy]\n[mypy-pkg.typed]\nignore_errors = True\n"}),
    "pyproject mypy override": ("types", {"+pyproject.toml": '\n[[tool.mypy.overrides]]\n'
                                          'module = "pkg.typed"\nignore_errors = true\n'}),
    "stub beside the module": ("types", {"pkg/typed.pyi": "def add(a: int, b: int) -> str: "
                                                          "...\n"}),
}


def _project(ralph: Ralph) -> None:
    ralph.makepyproject(PYPROJECT)
    ralph.makefile("pkg/__init__.py", "")
    ralph.makefile("pkg/lint.py", LINTED)
    ralph.makefile("pkg/typed.py", TYPED)
    ralph.git_init()


def _agent(ralph: Ralph, files: dict[str, str]) -> str:
    body = "".join(
        f"p = pathlib.Path({name.lstrip('+')!r})\np.parent.mkdir(parents=True, exist_ok=True)\n"
        + (f"p.write_text(p.read_text() + {text!r})\n" if name.startswith("+")
           else f"p.write_text({text!r})\n") for name, text in files.items())
    return agent(ralph, body)


def _check(ralph: Ralph, name: str) -> dict[str, object]:
    data = json.loads((ralph.path / ".ralph/iterations/001/verification.json").read_text())
    check: dict[str, object] = next(c for c in data["checks"] if c["name"] == name)
    return check


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_settings_edit_does_not_count(ralph: Ralph, edit: str) -> None:
    until, files = EDITS[edit]
    _project(ralph)
    before = ralph.run("check", "--until", until)
    assert before.ret != 0, before
    result = ralph.run("run", "--agent", _agent(ralph, files), "--until", until,
                       "--no-integrity", "--max-iterations", "1", "make it pass")
    assert state(ralph)["verdict"]["verdict"] != "complete", result
    check = _check(ralph, until)
    assert check["status"] == "failed", check
    failures = check["failures"]
    assert isinstance(failures, list)
    where = "pkg/lint.py" if until == "lint" else "pkg/typed.py"
    assert {f["path"] for f in failures} == {where}, failures
    # The tree is the agent's: the settings it wrote are still there.
    for name in files:
        assert (ralph.path / name.lstrip("+")).is_file()


def test_fixed_code_with_stricter_settings_completes(ralph: Ralph) -> None:
    _project(ralph)
    files = {"pkg/lint.py": LINTED.replace("import os\n\n\n", ""),
             "pkg/typed.py": TYPED.replace("str(a + b)", "a + b"),
             "+pyproject.toml": '\n[tool.ruff]\nline-length = 90\n'}
    result = ralph.run("run", "--agent", _agent(ralph, files), "--until", "lint,types",
                       "--no-integrity", "--max-iterations", "1", "make it pass")
    assert state(ralph)["verdict"]["verdict"] == "complete", (result, _check(ralph, "lint"))
