"""Guarded files: those matching ``keep`` may be edited but not deleted, ``protected`` ones
neither. A test file moved (the same content elsewhere) or gone with every test of it
renamed or deleted with its feature is not a deletion."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair


_GLOB = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}


def glob_regex(pattern: str) -> re.Pattern[str]:
    """``tests/**`` style globs: ``**`` spans folders, ``*`` and ``?`` stay within one."""
    out = "".join(_GLOB.get(part) or re.escape(part)
                  for part in re.findall(r"\*\*/|\*\*|\*|\?|[^*?]+", pattern))
    return re.compile(out + r"\Z")


def matching(files: Sequence[str], globs: Sequence[str]) -> dict[str, str]:
    """File -> the first glob it matches."""
    patterns = [(glob, glob_regex(glob)) for glob in globs]
    found = {}
    for path in files:
        glob = next((g for g, regex in patterns if regex.match(path)), None)
        if glob is not None:
            found[path] = glob
    return found


def compare(pair: Pair) -> list[Failure]:
    before, after = pair.before, pair.after
    failures = []
    unexplained = {key.split("::", 1)[0] for key in pair.tests.removed}
    old, new = before.hashes, after.hashes
    protected = set(before.protected)
    by_hash = {digest: path for path, digest in new.items()}
    globs = matching(list(old), [*before.protected_globs, *before.keep_globs])
    for path, digest in sorted(old.items()):
        rule = "protected" if path in protected else "keep"
        glob = globs.get(path, "?")
        if path not in new:
            moved = by_hash.get(digest)
            if (moved and moved not in old) or (
                    path in before.tests and path not in unexplained):
                continue
            failures.append(Failure(
                message=f"{path} was deleted; files matching {glob} ({rule}) must not be "
                        "deleted during the session: restore it (deleted-file; to allow it, "
                        "leave it out of the keep/protected globs)",
                location=path, path=path, code="deleted-file"))
        elif path in protected and new[path] != digest:
            failures.append(Failure(
                message=f"protected file {path} was edited; files matching {glob} (protected) "
                        "must stay as they were at the session's start: restore it",
                location=path, path=path, code="edited-protected"))
    return failures
