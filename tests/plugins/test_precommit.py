"""``precommit``: the project's own pre-commit hooks, run by the real pre-commit."""

from __future__ import annotations

import textwrap

from ralph_verify.testing import Ralph

CONFIG = """\
repos:
- repo: local
  hooks:
  - id: no-todo
    name: no TODO left
    entry: bash -c 'if grep -n TODO "$@"; then exit 1; fi' --
    language: system
    types: [python]
  - id: always-ok
    name: always ok
    entry: "true"
    language: system
  - id: strip-trailing
    name: strip trailing whitespace
    entry: sed -i 's/ *$//'
    language: system
    types: [python]
  - id: docs-only
    name: nothing to check
    entry: "true"
    language: system
    files: \\.nothing$
"""


def _project(ralph: Ralph, app: str) -> None:
    ralph.makefile(".pre-commit-config.yaml", CONFIG)
    ralph.makefile("app.py", textwrap.dedent(app))
    ralph.git_init()


def test_each_failing_hook_is_a_failure_with_its_output(ralph: Ralph) -> None:
    _project(ralph, "x = 1   \n# TODO: finish this\n")
    result = ralph.run("check", "--until", "precommit", "--json")
    assert result.ret == 1, result
    (check,) = result.json()["checks"]
    assert check["summary"] == "2 of 4 hooks failed: no-todo, strip-trailing"
    failures = {f["location"]: f for f in check["failures"]}
    assert failures["no-todo"]["message"] == (
        "pre-commit hook no-todo failed: exit code 1: 2:# TODO: finish this")
    assert "2:# TODO: finish this" in failures["no-todo"]["detail"]
    assert failures["strip-trailing"]["message"] == (
        "pre-commit hook strip-trailing failed: files were modified by this hook")
    # As with pre-commit itself, the fixer fixed the file.
    assert (ralph.path / "app.py").read_text() == "x = 1\n# TODO: finish this\n"


def test_passes_when_every_hook_passes(ralph: Ralph) -> None:
    _project(ralph, "x = 1\n")
    result = ralph.run("check", "--until", "precommit")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["PASSED*precommit*3 hooks passed*"])


def test_no_config_is_an_error_that_says_so(ralph: Ralph) -> None:
    ralph.makefile("app.py", "x = 1\n")
    ralph.git_init()
    result = ralph.run("check", "--until", "precommit")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*precommit*no .pre-commit-config.yaml*"])


def test_a_missing_pre_commit_names_the_package(ralph: Ralph) -> None:
    _project(ralph, "x = 1\n")
    ralph.makepyproject('[tool.ralph-verify.checks.precommit]\n'
                        'command = ["no-such-pre-commit"]\n')
    result = ralph.run("check", "--until", "precommit")
    assert result.ret == 3, result
    assert "pip install pre-commit" in result.out
