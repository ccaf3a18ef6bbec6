"""Type escapes, by mypy's own evidence: a product module whose share of lines mypy does not
check precisely (Any, imprecise, unanalyzed: its ``--lineprecision-report``, from a mypy run
of its own, see :meth:`TypesCheck.precision`) grew since the session's start. A cast to
``Any``, a return annotated ``Any``, ``no_type_check``, a body behind ``TYPE_CHECKING`` or
``eval`` all make the types check pass by taking lines out of mypy's sight; typed code
added honestly keeps the share. A value annotated where it enters (``x: T =
json.loads(text)``) counts as typed, as a ``cast`` does. Judged only when the session checks
types."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure
from ralph_verify.integrity.rules.gaming import is_source
from ralph_verify.integrity.sources import module_file, parse, read_text

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair

def compare(pair: Pair) -> list[Failure]:
    """A ``type-escape`` per product module of the start whose share of lines mypy does not
    check precisely grew."""
    then, now = pair.before.precision, pair.after.precision
    if "types" not in pair.checks or not then or not now:
        return []
    failures = []
    for module, (loose, lines) in sorted(now.items()):
        was_loose, was_lines = then.get(module, (0, 0))
        path = module_file(pair.root, module)
        path = path if path is not None and is_source(path) else None
        if path is not None:
            loose -= _stated(pair.root / path)
        if path is None or not was_lines or loose <= was_loose \
                or loose * was_lines <= was_loose * lines:
            continue
        failures.append(Failure(
            message=f"{path}: mypy no longer checks {loose - was_loose} more line(s) "
                    f"precisely ({loose} of {lines} lines are Any, imprecise or unanalyzed, "
                    f"{was_loose} of {was_lines} at the session's start): the types check "
                    "passes because mypy does not look; type the code instead of taking it "
                    "out of mypy's sight (Any, cast, no_type_check, TYPE_CHECKING, eval) "
                    "(type-escape)", location=path, path=path, code="type-escape"))
    return failures


def _stated(path: Path) -> int:
    """Lines of annotated assignments of a call's value (``rates: dict[str, float] =
    json.loads(text)``): the type is stated where an untyped value enters, as a ``cast``
    states it, and mypy checks the code after it."""
    tree = parse(read_text(path))
    if tree is None:
        return 0
    return sum((node.end_lineno or node.lineno) - node.lineno + 1 for node in ast.walk(tree)
               if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Call))
