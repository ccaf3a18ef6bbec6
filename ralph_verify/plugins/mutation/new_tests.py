"""For ``integrity``: new tests that fail under less than a fifth of the mutants of the product
code they run assert little that code decides (a bound, a loose ``approx``, a type)."""

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
    """A failure (code ``idle-test``) for each file of ``new_tests`` (pytest node ids, or
    ``file::function`` for all its cases) whose tests kill under a fifth of the mutants they reach
    (mutants that do not compile and ``return None`` left out). Raises
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
    # A ``return None`` mutant is killed by any use of the value: evidence of a call, not of
    # a check, so it counts neither way.
    counted = {i for i in found.mutants
               if found.mutants[i][1].new != "return None" and i not in outcomes.invalid}
    # Judged by file: a narrow new test (an error path whose mutants are equivalent) beside
    # tests that check values is honest; a file of new tests that check little is not.
    reach: dict[str, set[int]] = {}
    killed: dict[str, set[int]] = {}
    for test, mutants in outcomes.reach.items():
        reach.setdefault(test.split("::", 1)[0], set()).update(set(mutants) & counted)
    for mutant, killers in outcomes.killers.items():
        for test in killers:
            killed.setdefault(test.split("::", 1)[0], set()).add(mutant)
    failures = []
    for rel in sorted({test.split("::", 1)[0] for test in ids}):
        reached = reach.get(rel, set())
        kills = len(killed.get(rel, set()) & reached)
        if not reached:
            # Product code run only while the module is imported (collection) counts for
            # coverage but is judged by no test: a file that runs none of what it imports.
            imported = set(imported_product_files(ctx.root, {rel}))
            if any(found.mutants[i][0] in imported for i in counted):
                failures.append(Failure(
                    message=f"the new tests of {rel} run none of the product code they import "
                            f"({', '.join(sorted(imported))}); code run at import is judged "
                            "by no test: call it from a test and check the values it returns",
                    location=rel, path=rel, code="idle-test"))
            continue
        if 5 * kills >= len(reached):
            continue
        where = sorted({found.mutants[i][0] for i in reached})
        failures.append(Failure(
            message=f"the new tests of {rel} kill {kills} of the "
                    f"{many(len(reached), 'mutant')} of the product code they run "
                    f"({', '.join(where)}; a `return None` not counted): they assert little "
                    "that code decides; check the values it returns", location=rel,
            path=rel, code="idle-test"))
    return failures


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
