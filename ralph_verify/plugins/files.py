"""``files:GLOB`` (something matches) and ``!files:GLOB`` (nothing matches)."""

from __future__ import annotations

from pathlib import Path

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status, VerifyContext
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.markers import hookimpl
from ralph_verify.project.git import NOISE_PARTS


def matches(root: Path, pattern: str) -> list[str]:
    """Files and folders under ``root`` matching ``pattern`` (``**`` allowed), sorted;
    nothing inside caches, ``.ralph/`` or virtual environments counts."""
    if Path(pattern).is_absolute():
        raise ValueError("files: takes a path relative to the project root")
    found = []
    for path in root.glob(pattern):
        relative = path.relative_to(root)
        if not NOISE_PARTS.intersection(relative.parts[:-1]):
            found.append(relative.as_posix())
    return sorted(found)


class FilesCheck(Check):
    cost = 0
    handles_negation = True

    def run(self, ctx: VerifyContext) -> CheckResult:
        pattern = self.spec.arg or ""
        try:
            found = matches(ctx.root, pattern)
        except ValueError as exc:
            return self.error(str(exc))
        count = len(found)
        listing = ", ".join(found[:5]) + (f" and {count - 5} more" if count > 5 else "")
        if self.spec.negated and found:
            return self.result(Status.FAILED, f"{count} must not exist: {listing}", metric=count,
                               failures=[Failure(message=f"{path} must not exist (matches "
                                                         f"!files:{pattern})",
                                                 location=path, path=path) for path in found])
        if self.spec.negated:
            return self.result(Status.PASSED, f"nothing matches {pattern}", metric=0)
        if self.spec.meets(count, count > 0):
            return self.result(Status.PASSED, f"{count} match{'es' if count != 1 else ''}: "
                                              f"{listing}", metric=count)
        want = self.spec.threshold_text() or ">=1"
        return self.result(Status.FAILED, f"{count} files match {pattern}, wanted {want}",
                           metric=count, failures=[Failure(
                               message=f"expected files matching {pattern} ({want}), found "
                                       f"{count}", location=pattern)])


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="files", factory=FilesCheck, arg="required", negatable=True,
        arg_help="a path or glob relative to the root, ** allowed",
        threshold="number of matching files (default: at least one)",
        help="a file or glob must exist (files:src/app.py) or must not (!files:jest.config.js)",
    ))
