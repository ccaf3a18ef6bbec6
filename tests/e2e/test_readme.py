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
