"""Lint findings kept quiet by statements that do nothing, by ruff's own evidence: a finding
the lint check reported at the session's start in a product file (an unused import or
variable) that ruff reports again once the file's asserts (which ``python -O`` drops), ``del``
statements, bare expressions and ``if`` statements with an empty body are taken out. Such a
statement "uses" the name without using it; the honest fix removes the name."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure
from ralph_verify.integrity.rules.gaming import is_source

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext
    from ralph_verify.records.integrity import Picture


class _Idle(ast.NodeTransformer):
    """Takes out the statements that do nothing but name something."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                kept = [s for s in body if not _idle(s)]
                setattr(node, name, kept or ([ast.Pass()] if name == "body" else []))
        return node


def _idle(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.Assert, ast.Delete)) or (
        isinstance(stmt, ast.Expr) and not isinstance(stmt.value, (ast.Call, ast.Await,
                                                                    ast.Yield, ast.YieldFrom)))\
        or (isinstance(stmt, ast.If) and all(isinstance(s, ast.Pass) for s in stmt.body)
            and not stmt.orelse)


def dead_uses(ctx: VerifyContext, ruff: list[str], before: Picture,
              after: Picture) -> list[Failure]:
    """A ``lint-game`` per finding of the start's lint check that only idle statements hide."""
    if before.gate is None or before.facts is None or after.facts is None:
        return []
    wanted = {(path, code) for check, path, code in before.gate.failing if check == "lint"}
    old, new = before.facts.files, after.facts.files
    folder = ctx.workdir / "dead-uses"
    written = {}
    for rel in sorted({path for path, _ in wanted}):
        if rel not in new or not is_source(rel) or (rel in old and old[rel].sha == new[rel].sha):
            continue
        try:
            tree = ast.parse((ctx.root / rel).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        text = ast.unparse(tree)
        stripped = ast.unparse(_Idle().visit(tree))
        if stripped != text:
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(stripped, encoding="utf-8")
            written[(folder / rel).resolve().as_posix()] = rel
    if not written:
        return []
    codes = ",".join(sorted({code for _, code in wanted}))
    run = ctx.run([*ruff, "check", "--isolated", "--no-cache", "--select", codes,
                   "--output-format", "json", "--exit-zero", str(folder)], timeout=60,
                  cwd=folder)
    try:
        found = json.loads(run.stdout) if run.returncode == 0 else []
    except json.JSONDecodeError:
        return []
    failures = []
    for item in found:
        path = written.get(Path(str(item.get("filename", ""))).resolve().as_posix())
        if path is not None and (path, item.get("code")) in wanted:
            failures.append(Failure(
                message=f"{path}: {item.get('message')} ({item.get('code')}) once its asserts,"
                        " del statements and empty ifs are taken out: a statement that does "
                        "nothing keeps ruff quiet; remove the unused name instead (lint-game)",
                location=path, path=path, code="lint-game"))
    return failures
