"""A ralph-verify plugin in one module: the ``todo`` check and a wrapper around every check.

``todo<=3`` passes while at most three TODO comments are left in the project's
Python files; ``todo`` alone wants none. The wrapper records each check's wall
time in its ``counts`` (visible with ``--json``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator

from pydantic import Field

from ralph_verify import (
    Check,
    CheckOptions,
    CheckRegistry,
    CheckResult,
    CheckType,
    Failure,
    Status,
    VerifyContext,
    hookimpl,
)

SKIPPED_FOLDERS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".ralph"}


class TodoOptions(CheckOptions):
    """``[tool.ralph-verify.checks.todo]``; ``timeout`` is inherited from CheckOptions."""

    marker: str = Field(default="TODO", description="the word that marks a to-do comment")
    include: str = Field(default="**/*.py",
                         description="glob of the files to search, relative to the root")


class TodoCheck(Check):
    cost = 1  # cheap: started before the slow checks

    def run(self, ctx: VerifyContext) -> CheckResult:
        options = self.options
        assert isinstance(options, TodoOptions)  # the registry builds it from CheckType.options
        comment = re.compile(rf"#.*\b{re.escape(options.marker)}\b(.*)")
        failures = []
        for path in sorted(ctx.root.glob(options.include)):
            relative = path.relative_to(ctx.root)
            if not path.is_file() or SKIPPED_FOLDERS.intersection(relative.parts):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), start=1):
                match = comment.search(line)
                if match:
                    failures.append(Failure(
                        message=f"{options.marker} left: {match.group(1).strip(' :')}",
                        location=f"{relative.as_posix()}:{number}",
                        path=relative.as_posix(), line=number,
                    ))
        count = len(failures)
        # spec.compare applies the threshold of `todo<=3`; a bare `todo` wants none.
        ok = self.spec.compare(count) if self.spec.op else count == 0
        summary = f"{count} {options.marker} comment{'s' if count != 1 else ''}"
        if ok:
            return self.result(Status.PASSED, summary, metric=count)
        wanted = self.spec.threshold_text() or "==0"
        return self.result(Status.FAILED, f"{summary}, wanted {wanted}", metric=count,
                           failures=failures)


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="todo", factory=TodoCheck, options=TodoOptions,
        threshold="the number of to-do comments allowed (default: none)",
        help="limit the TODO comments left in the code (todo<=3)",
    ))


@hookimpl(wrapper=True)
def ralph_verify_check(check: Check, ctx: VerifyContext) -> Generator[
        None, CheckResult | None, CheckResult | None]:
    """Wraps every check, not only ours: the check runs at ``yield``."""
    started = time.perf_counter()
    result = yield
    if result is not None:
        result.counts["wall_ms"] = round((time.perf_counter() - started) * 1000)
    return result
