"""The README's set-up commands are the ones CI and the tests run."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines()
                if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert commands == ["python3 scripts/test.py"]
    assert "\npython3 scripts/test.py\n" in readme


def test_readme_documents_every_exit_code_of_check_and_run() -> None:
    from ralph_verify.session import ExitCode
    from ralph_verify.verdict import EXIT_CODES

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for code in [*ExitCode, *EXIT_CODES.values()]:
        assert f"| {int(code)} |" in readme, f"exit code {int(code)} is not in the README"
    for verdict in EXIT_CODES:
        assert f"| {verdict.value} |" in readme
