"""``tests:hidden=PATH``: acceptance tests held out of the agent's reach.

Copied into the tree only while this check runs, alone, last; only each failing test's id
and first message line come back, never a traceback or source line."""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import CheckResult, Failure, Status
from ralph_verify.junit.read import JUnitError, TestCaseResult
from ralph_verify.plugins.pytest_run.shared import HIDDEN_MARKER
from ralph_verify.project.git import GitError, exclude, is_repo

if TYPE_CHECKING:
    from ralph_verify.checks.api import Check, VerifyContext

PREFIX = "hidden="
#: The folder the tests are copied to, and the file that says ralph-verify made it.
COPY_NAME = "_ralph_hidden_tests"
MARKER = ".ralph-verify-hidden"
WITHHELD = "hidden test: source withheld"
#: Why a held-out run that could not start shows nothing of pytest's output (their source).
NOT_RUN = ("the held-out tests could not be run (pytest's output is withheld: it would show "
           "their source); run them by hand")


def _run_held_out(check: Check, ctx: VerifyContext, select: list[str], prefix: str,
                  none: tuple[str, str]) -> CheckResult:
    """Run the held-out tests ``select`` picks (a marker or the copied folder) apart from the
    visible run, with one-line tracebacks; failures by id and first message line only."""
    from ralph_verify.plugins.junit import report_result
    from ralph_verify.plugins.pytest_run.shared import (
        EXIT_NO_TESTS,
        launch,
        read_pytest_report,
        rerun_args,
        tests_args,
    )
    from ralph_verify.proc.process import ToolError

    args = [*rerun_args(tuple(tests_args(ctx)), ctx.root), "-p", "no:cacheprovider",
            "--tb=line", *select]
    try:
        run = launch(ctx, "pytest-hidden", args=args, coverage=False)
    except ToolError:
        return check.error(NOT_RUN)
    if run.tool_run.returncode == EXIT_NO_TESTS:
        return check.result(Status.FAILED, none[0], metric=0.0,
                            failures=[Failure(message=none[1], code="no-tests")])
    try:
        report = read_pytest_report(run)
    except JUnitError:
        return check.error("the held-out tests' report is unreadable")
    report.problems = [_withheld(case, prefix) for case in report.problems]
    result = report_result(check, report, no_tests="no held-out test ran")
    result.summary = f"held-out tests: {result.summary}"
    result.output = ""
    return result


def hidden_source(check: Check, root: Path) -> Path | str:
    """The held-out tests named by ``tests:hidden=PATH``, or what is wrong with PATH."""
    raw = (check.spec.arg or "")[len(PREFIX):].strip()
    if not raw:
        return f"{check.spec.text}: name the held-out tests, e.g. 'tests:hidden=../acceptance'"
    path = (root / Path(raw).expanduser()).resolve()
    if not path.exists():
        return f"{check.spec.text}: {path} does not exist; point PATH at the held-out tests"
    if path == root.resolve() or root.resolve() in path.parents:
        return (f"{check.spec.text}: {path} is inside the project, where the agent can read "
                "and edit it; keep held-out tests outside the project tree")
    if path.is_file() and path.suffix != ".py":
        return f"{check.spec.text}: {path} is not a Python test file or a folder of tests"
    return path


def copy_target(root: Path) -> Path:
    tests = root / "tests"
    return (tests if tests.is_dir() else root) / COPY_NAME


def remove_copy(root: Path) -> None:
    """Remove a copy this check made (it carries the marker); anything else is left alone."""
    target = copy_target(root)
    if (target / MARKER).is_file():
        shutil.rmtree(target, ignore_errors=True)


def run_hidden(check: Check, ctx: VerifyContext) -> CheckResult:
    if check.spec.arg == HIDDEN_MARKER:  # the tests marked @pytest.mark.hidden
        return _run_held_out(check, ctx, ["-m", HIDDEN_MARKER], "", (
            "no test marked @pytest.mark.hidden collected", "tests:hidden holds out the tests "
            "marked @pytest.mark.hidden, and none was collected: mark the acceptance tests, or "
            "use tests:hidden=PATH"))
    source = hidden_source(check, ctx.root)
    if isinstance(source, str):
        return check.error(source)
    target = copy_target(ctx.root)
    remove_copy(ctx.root)
    if target.exists():
        return check.error(f"{target} exists and was not made by ralph-verify: move it away, "
                           "the held-out tests are copied there")
    if is_repo(ctx.root):
        with contextlib.suppress(GitError, OSError):
            exclude(ctx.root, COPY_NAME + "/", "held-out tests ralph-verify copies in while it "
                    "verifies")
    try:
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns(
                "__pycache__", ".pytest_cache", "*.pyc"))
        else:
            target.mkdir()
            shutil.copy2(source, target / source.name)
        (target / MARKER).write_text("held-out tests copied in by ralph-verify; removed after "
                                     "the check\n", encoding="utf-8")
        rel = target.relative_to(ctx.root).as_posix()
        return _run_held_out(check, ctx, [rel], rel + "/", (
            "no held-out test collected", f"no test collected from {source}"))
    finally:
        shutil.rmtree(target, ignore_errors=True)


def _withheld(case: TestCaseResult, prefix: str) -> TestCaseResult:
    """``case`` with its id and the first line of its message only: no traceback, no source
    line, no place in a file the agent could look for."""
    lines = case.message.strip().splitlines()
    first = lines[0] if lines else ""
    return replace(case, id=case.id.replace(prefix, "", 1), detail="", path=None, line=None,
                   cause=None, message=f"{first} ({WITHHELD})" if first else WITHHELD)
