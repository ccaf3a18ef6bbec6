"""Which code is the project's own (``types``' default targets) and what its CI gives mypy."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_verify.project.layout import ci_mypy_targets, mypy_arguments, project_packages


def make(root: Path, *files: str, pyproject: str = "") -> Path:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    (root / "pyproject.toml").write_text(pyproject)
    return root


@pytest.mark.parametrize(("files", "pyproject", "expected"), [
    # src layout: every package and module under src/, never the tests
    (["src/pkg/__init__.py", "src/tool.py", "tests/test_pkg.py", "tests/__init__.py"], "",
     ["src/pkg", "src/tool.py"]),
    # a namespace package under src; setuptools' find.where names another folder
    (["src/company/product/__init__.py", "src/mylib.egg-info/x.py", "tests/__init__.py"], "",
     ["src/company"]),
    (["lib/pkg/__init__.py", "src/other.py"],
     '[tool.setuptools.packages.find]\nwhere = ["lib"]\n', ["lib/pkg"]),
    # the name pyproject gives, normalised; a module or a package
    (["my_lib.py", "setup.py", "tests/__init__.py"], '[project]\nname = "My.Lib"\n', ["my_lib.py"]),
    (["app/__init__.py", "other/__init__.py"], '[tool.setuptools]\npackages = ["app", "app.sub"]\n',
     ["app"]),
    (["lib/__init__.py", "x/__init__.py"],
     '[tool.hatch.build.targets.wheel]\npackages = ["lib"]\n', ["lib"]),
    (["flitmod.py"], '[tool.flit.module]\nname = "flitmod"\n', ["flitmod.py"]),
    # nothing named: the top-level packages that are not tests, docs, examples, benchmarks
    (["calc/__init__.py", "tests/__init__.py", "docs/__init__.py", "examples/__init__.py",
      "benchmarks/__init__.py", "build/lib/__init__.py", ".hidden/__init__.py", "setup.py"],
     '[project]\nname = "unrelated"\n', ["calc"]),
    # no package at all: unknown (mypy then checks the tree)
    (["app.py", "tests/test_app.py"], '[project]\nname = "sample"\n', []),
])
def test_project_packages(tmp_path: Path, files: list[str], pyproject: str,
                          expected: list[str]) -> None:
    assert project_packages(make(tmp_path, *files, pyproject=pyproject)) == expected


@pytest.mark.parametrize(("command", "expected"), [
    (" src tests", (["src", "tests"], [])),
    (" --strict -p pkg --config-file x.ini {posargs}", (["-p", "pkg"], ["--strict"])),
    (" --python-version 3.11 --junit-xml out.xml --install-types src",
     (["src"], ["--python-version", "3.11"])),
    (" --strict", None),  # no target: mypy reads files from its config
    (" src 'unclosed", None),
])
def test_mypy_arguments(command: str,
                        expected: tuple[list[str], list[str]] | None) -> None:
    assert mypy_arguments(command) == expected


def test_ci_mypy_targets(tmp_path: Path) -> None:
    make(tmp_path, "src/pkg/__init__.py")
    assert ci_mypy_targets(tmp_path) is None
    workflow = tmp_path / ".github" / "workflows" / "ci.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("steps:\n  - run: pip install mypy .\n"
                        "  - run: python -m mypy --strict elsewhere/\n"  # not in this tree
                        "  - run: mypy src/pkg\n")
    assert ci_mypy_targets(tmp_path) == (["src/pkg"], [], ".github/workflows/ci.yml")
    (tmp_path / "noxfile.py").write_text(
        'def types(session):\n    session.install("mypy")\n'
        '    session.run("mypy", "--strict", "src", *session.posargs)\n')
    assert ci_mypy_targets(tmp_path) == (["src"], ["--strict"], "noxfile.py")
    (tmp_path / "tox.ini").write_text("[testenv:types]\ncommands =\n    mypy -p pkg {posargs}\n")
    assert ci_mypy_targets(tmp_path) == (["-p", "pkg"], [], "tox.ini")


def test_several_mypy_runs_become_one(tmp_path: Path) -> None:
    """attrs' tox.ini runs mypy twice; the check runs once over both sets of targets."""
    make(tmp_path, "typing_tests/a.py", "src/attr/__init__.pyi", "src/attr/filters.pyi")
    (tmp_path / "tox.ini").write_text(
        "[testenv]\ncommands =\n    mypy: pytest -k test_mypy\n    mypy: mypy typing_tests\n"
        "    mypy: mypy src/attr/__init__.pyi src/attr/filters.pyi typing_tests\n")
    assert ci_mypy_targets(tmp_path) == (
        ["typing_tests", "src/attr/__init__.pyi", "src/attr/filters.pyi"], [], "tox.ini")
