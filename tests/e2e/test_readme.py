"""The README's set-up commands are the ones CI and the tests run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines()
                if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert commands == ["python3 scripts/test.py"]
    assert "\npython3 scripts/test.py\n" in readme


def test_the_readme_is_short_and_points_to_a_page_per_command_family() -> None:
    """What a newcomer needs fits in under 400 lines; each command family's details, options
    included, are on its own page."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 400
    for page in ("docs/check.md", "docs/run.md", "docs/sessions.md", "docs/hook-mode.md"):
        assert f"]({page}" in readme and (ROOT / page).is_file(), page


def test_readme_documents_every_exit_code_of_check_and_run() -> None:
    from ralph_verify.cli import ExitCode
    from ralph_verify.loop.verdict import EXIT_CODES

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for code in [*ExitCode, *EXIT_CODES.values()]:
        assert f"| {int(code)} |" in readme, f"exit code {int(code)} is not in the README"
    for verdict in EXIT_CODES:
        assert f"| {verdict.value} |" in readme


SHELL_OPERATOR = re.compile(r"[\w%*](?:>=|<=|==|>|<)\d")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def _unquoted_thresholds(text: str, *, only_after_until: bool) -> list[str]:
    """Lines where a spec with '>' or '<' would reach a shell unquoted (a redirection)."""
    bad = []
    for line in text.splitlines():
        if only_after_until:
            if "--until" not in line:
                continue
            rest = line[line.index("--until"):]
            if rest[len("--until"):][:1] in ("'", '"'):
                continue  # code: ["--until", "todo<=1"] never meets a shell
        else:
            rest = line
        if SHELL_OPERATOR.search(QUOTED.sub("''", rest)):
            bad.append(line.strip())
    return bad


def _doc_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for folder in ("examples", "claude-plugin"):
        files += [path for path in sorted((ROOT / folder).rglob("*"))
                  if path.is_file() and path.suffix in {".md", ".py", ".toml", ".json", ".sh",
                                                        ".txt", ".yml", ".yaml", ""}
                  and "replay" not in path.parts]
    return files


def test_every_until_example_in_the_docs_is_safe_to_paste_into_a_shell() -> None:
    """`--until tests,coverage>=80` unquoted is a redirection to a file '=80' (issue 8)."""
    bad = {str(path.relative_to(ROOT)): found for path in _doc_files()
           if (found := _unquoted_thresholds(path.read_text(encoding="utf-8", errors="replace"),
                                             only_after_until=True))}
    assert bad == {}


def test_no_help_text_shows_an_unquoted_threshold() -> None:
    from ralph_verify.startup import get_config

    config = get_config(["checks"])
    try:
        names = sorted(config.parser.commands)
    finally:
        config.hook.ralph_unconfigure(config=config)
    assert "check" in names and "run" in names
    bad = {}
    for argv in [["--help"], *[[name, "--help"] for name in names]]:
        proc = subprocess.run([sys.executable, "-m", "ralph_verify", *argv], capture_output=True,
                              text=True, check=False, env={**os.environ, "COLUMNS": "200"})
        assert proc.returncode == 0, (argv, proc.stderr)
        if found := _unquoted_thresholds(proc.stdout, only_after_until=False):
            bad[" ".join(argv)] = found
    assert bad == {}


def test_the_scanner_finds_the_trap() -> None:
    assert _unquoted_thresholds("ralph-verify check --until tests,coverage>=80",
                                only_after_until=True)
    assert not _unquoted_thresholds("ralph-verify check --until 'tests,coverage>=80'",
                                    only_after_until=True)
    assert not _unquoted_thresholds("ralph-verify check --until tests,coverage.min=80",
                                    only_after_until=True)


#: A project that gives the README's check example: lint clean, test_sub failing (sub adds),
#: and coverage under 80% (a function no test runs).
CALC = """\
def add(a, b):
    return a + b


def sub(a, b):
    return a + b


def mul(a, b):
    return a * b


def untested(values):
    total = 0
    for value in values:
        if value > 10:
            total += value * 2
        elif value < 0:
            total -= value
        else:
            total += 1
    return total
"""
TEST_CALC = """\
from mixed.calc import add, mul, sub


def test_add() -> None:
    assert add(2, 3) == 5


def test_sub() -> None:
    assert sub(5, 3) == 2


def test_mul() -> None:
    assert mul(2, 3) == 6


def test_add_zero() -> None:
    assert add(0, 0) == 0


def test_mul_one() -> None:
    assert mul(1, 7) == 7
"""


def calc_project(tmp_path: Path, settings: str = "") -> Path:
    """The README's example project (src/mixed/calc.py and its tests) under ``tmp_path``,
    with more ``settings`` at the end of its pyproject.toml."""
    project = tmp_path / "calc"
    (project / "src" / "mixed").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "src" / "mixed" / "__init__.py").write_text("")
    (project / "src" / "mixed" / "calc.py").write_text(CALC)
    (project / "tests" / "test_calc.py").write_text(TEST_CALC)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "calc"\nversion = "0"\n\n[tool.pytest.ini_options]\n'
        'pythonpath = ["src"]\n\n[tool.coverage.run]\nsource = ["src"]\n' + settings)
    return project


def test_the_readme_check_example_is_what_check_prints(tmp_path: Path) -> None:
    """The README's ``check`` block, run as written on a project like its own: the same
    lines, numbers and timings aside."""
    import fnmatch

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n\$ (ralph-verify check [^\n]*)\n(.*?)```", readme, re.S)
    assert block is not None, "the README lost its check example"
    command, shown = block.group(1), block.group(2).splitlines()
    project = calc_project(tmp_path)
    bin_dir = str(Path(sys.executable).parent)
    done = subprocess.run(["bash", "-c", command], cwd=project, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"],
                               "NO_COLOR": "1", "RALPH_VERIFY_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 1, done
    printed = done.stdout.splitlines()
    assert len(printed) == len(shown), done.stdout
    for line in shown:  # the checks' lines come as each is decided: in any order
        pattern = re.sub(r"\d+(\.\d+)?", "*", line.replace("/tmp/calc", "*"))
        pattern = re.sub(r"python: .*", "python: *", pattern).replace("[", "[[]")
        pattern = re.sub(r"(?<=missing) .*", " *", pattern)
        pattern = re.sub(r"^(PASSED|FAILED)  (\S+) +", r"\1  \2 *", pattern)
        assert any(fnmatch.fnmatchcase(out, pattern) for out in printed), (pattern, printed)
