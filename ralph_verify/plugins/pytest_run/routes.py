"""Product code the start's tests ran that today's tests go around (for ``integrity``).

When a session measures coverage, the product lines its start's tests ran are kept with the
frozen integrity baseline. A line still there, unchanged, that those tests ran then and no
test runs now has been routed around: the tests' inputs take another path past code the
session kept (their inputs special-cased, a branch taken only under pytest or coverage, the
function rebound to a copy). A fix changes the code the tests ran; it does not leave it
standing beside a detour. Nothing here reads the agent's text: coverage is the evidence."""

from __future__ import annotations

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
    (``then``), unchanged since ``base``, that no test runs ``now``."""
    from ralph_verify.project.git import GitError, git
    from ralph_verify.project.judging_tree import changed_since

    changed = changed_since(root, base)
    failures = []
    for rel, ran in sorted(then.items()):
        ran_now = set(now.get(rel, ()))
        if not (root / rel).is_file() or (rel not in changed and not set(ran) - ran_now):
            continue
        try:
            after = (root / rel).read_text(encoding="utf-8").splitlines()
            before = git(root, "show", f"{base}:{rel}").splitlines() if rel in changed \
                else after
        except (GitError, OSError, UnicodeDecodeError):
            continue
        kept: dict[int, int] = {}  # a line number then -> now, for the lines left as they were
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for old, new, size in matcher.get_matching_blocks():
            kept.update((old + i + 1, new + i + 1) for i in range(size))
        lost = [kept[n] for n in ran if n in kept and kept[n] not in ran_now
                and after[kept[n] - 1].strip()]
        if not lost:
            continue
        shown = ", ".join(map(str, lost[:8])) + (" ..." if len(lost) > 8 else "")
        failures.append(Failure(
            message=f"{rel}: line(s) {shown} ran under the session start's tests, are still "
                    f"there unchanged (`{after[lost[0] - 1].strip()[:60]}`), and no test runs "
                    "them now: the tests' inputs go around code you kept (special-cased "
                    "inputs, a path taken only under pytest, a function rebound to a copy); "
                    "change that code instead",
            location=f"{rel}:{lost[0]}", path=rel, line=lost[0], code="routed-around"))
    return failures
