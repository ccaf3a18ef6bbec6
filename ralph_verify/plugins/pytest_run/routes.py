"""Product code the start's tests ran that today's tests go around (for ``integrity``).

A line still there, unchanged, that the start's tests ran and no test runs now has been
routed around (inputs special-cased, a branch taken only under pytest, a function rebound):
a fix changes the code the tests ran. Coverage is the evidence, not the agent's text."""

from __future__ import annotations

import ast
import difflib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext


def executed(ctx: VerifyContext, timeout: float) -> dict[str, list[int]] | None:
    """Product file -> the lines this verification's full pytest run executed; ``None`` when
    it ran no coverage, only the affected tests, or with released test files."""
    from ralph_verify.plugins.mutation.changes import is_product
    from ralph_verify.plugins.pytest_run.coverage_check import coverage_json
    from ralph_verify.plugins.pytest_run.shared import shared_pytest_run
    from ralph_verify.proc.process import ToolError

    try:
        run = shared_pytest_run(ctx)
        if run.partial or run.coverage_data is None or (run.oracle and run.oracle.released):
            return None
        if coverage_json(ctx, run, timeout).returncode not in (0, 2):
            return None
        files = json.loads(run.coverage_data.with_name("coverage.json").read_text())["files"]
    except (ToolError, OSError, ValueError, KeyError, TypeError):
        return None
    where = run.cwd or ctx.root
    lines = {}
    for name, info in files.items():
        path = Path(name)
        rel = (path.relative_to(where) if path.is_absolute() and path.is_relative_to(where)
               else path).as_posix()
        if is_product(rel) and not path.is_absolute():
            lines[rel] = sorted(int(n) for n in info.get("executed_lines", []))
    return lines


def routed_around(root: Path, base: str, then: dict[str, list[int]],
                  now: dict[str, list[int]]) -> list[Failure]:
    """A failure (code ``routed-around``) per product file with lines the start's tests ran
    (``then``), unchanged since ``base``, or functions they entered, still there by name, that
    no test runs ``now``."""
    from ralph_verify.project.git import GitError, git
    from ralph_verify.project.judging_tree import changed_since

    changed = changed_since(root, base)
    failures = []
    for rel, ran in sorted(then.items()):
        ran_now = set(now.get(rel, ()))
        if not (root / rel).is_file() or (rel not in changed and not set(ran) - ran_now):
            continue
        try:
            text = (root / rel).read_text(encoding="utf-8")
            old_text = git(root, "show", f"{base}:{rel}") if rel in changed else text
        except (GitError, OSError, UnicodeDecodeError):
            continue
        before, after = old_text.splitlines(), text.splitlines()
        kept: dict[int, int] = {}  # a line number then -> now, for the lines left as they were
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for old, new, size in matcher.get_matching_blocks():
            kept.update((old + i + 1, new + i + 1) for i in range(size))
        lost = [kept[n] for n in ran if n in kept and kept[n] not in ran_now
                and after[kept[n] - 1].strip()]
        bodies = _bodies(text)
        left = sorted(name for name, (first, last) in _bodies(old_text).items()
                      if name in bodies and any(first <= n <= last for n in ran)
                      and not any(bodies[name][0] <= n <= bodies[name][1] for n in ran_now))
        if not lost and not left:
            continue
        line = bodies[left[0]][0] if left else lost[0]
        what = (f"`{'`, `'.join(left[:4])}` ran under the session start's tests, and no test "
                "enters it now (it is still there)" if left else
                f"line(s) {', '.join(map(str, lost[:8]))}{' ...' if len(lost) > 8 else ''} ran "
                "under the session start's tests, are still there unchanged "
                f"(`{after[lost[0] - 1].strip()[:60]}`), and no test runs them now")
        failures.append(Failure(
            message=f"{rel}: {what}: the tests' inputs go around code you kept (special-cased "
                    "inputs, a path taken only under pytest, a function rebound to a copy); "
                    "change that code instead (or delete it, if nothing uses it)",
            location=f"{rel}:{line}", path=rel, line=line, code="routed-around"))
    return failures


def _bodies(text: str) -> dict[str, tuple[int, int]]:
    """Qualified name -> the first and last line of the body of each function of ``text``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, tuple[int, int]] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found[name] = (child.body[0].lineno, child.end_lineno or child.lineno)
                walk(child, f"{name}.")
            elif not isinstance(child, ast.expr):
                walk(child, prefix)

    walk(tree, "")
    return found
