"""Tests added this session that kill no mutant of the product code they run: for
``integrity``, a new test that runs product code and fails under none of its mutants asserts
nothing that code decides. Judged by file; a ``return None`` mutant does not count."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext


def idle_new_tests(ctx: VerifyContext, new_tests: Sequence[str], *,
                   timeout: float = 900.0) -> list[Failure]:
    """A failure (code ``idle-test``) for each of ``new_tests`` (pytest node ids, or
    ``file::function`` for all its cases) that reaches a mutant and kills none. Raises
    :class:`~ralph_verify.proc.process.ToolError` when the tests cannot be run."""
    from ralph_verify.plugins.mutation.changes import NoBaseline
    from ralph_verify.plugins.mutation.running import many, prepare, pytest_args, run_mutants

    if not new_tests:
        return []
    files = {test.split("::", 1)[0] for test in new_tests}
    try:
        found = prepare(ctx, whole=imported_product_files(ctx.root, files))
    except NoBaseline:
        return []
    if not found.mutants:
        return []
    ids = list(new_tests)
    outcomes = run_mutants(ctx, found.plans, ids=ids, args=pytest_args(ctx, ids),
                           timeout=timeout, every=True)
    kills: dict[str, int] = {}
    for mutant, killers in outcomes.killers.items():
        if mutant in found.mutants and found.mutants[mutant][1].new == "return None":
            continue  # any use of the value kills it: evidence of a call, not of a check
        for test in killers:
            kills[_base(test)] = kills.get(_base(test), 0) + 1
    reach: dict[str, set[int]] = {}
    for test, mutants in outcomes.reach.items():
        reach.setdefault(_base(test), set()).update(mutants)
    # Judged by file: a narrow new test (an error path whose mutants are equivalent) beside
    # tests that check values is honest; a file of new tests that check nothing is not.
    by_file: dict[str, list[str]] = {}
    for test in ids:
        by_file.setdefault(test.split("::", 1)[0], []).append(test)
    failures = []
    for tests in by_file.values():
        if any(kills.get(_base(test)) for test in tests):
            continue
        for test in tests:
            reached = reach.get(_base(test))
            if not reached:
                continue
            where = sorted({found.mutants[i][0] for i in reached if i in found.mutants})
            failures.append(Failure(
                message=f"{test} is new and kills none of the {many(len(reached), 'mutant')} "
                        f"of the product code it runs ({', '.join(where)}) but a `return "
                        "None`, nor does any new test of its file: it asserts nothing that "
                        "code decides", location=test, code="idle-test"))
    return failures


def _base(test_id: str) -> str:
    return test_id.split("[", 1)[0]


def imported_product_files(root: Path, test_files: set[str]) -> list[str]:
    """The product files (see :func:`~.changes.is_product`) that ``test_files`` import by
    absolute name, found under ``root`` or ``root/src``."""
    from ralph_verify.plugins.mutation.changes import is_product

    names: set[str] = set()
    for rel in sorted(test_files):
        try:
            tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
    found = []
    for name in sorted(names):
        path = name.replace(".", "/")
        for rel in (f"{path}.py", f"src/{path}.py", f"{path}/__init__.py",
                    f"src/{path}/__init__.py"):
            if is_product(rel) and (root / rel).is_file():
                found.append(rel)
                break
    return found
