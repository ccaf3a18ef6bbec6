"""The per-test-id baseline: a test pytest ran at the session's start must still run.

Counting tests cannot tell "deleted one test and added a trivial one" from honest work; ids
can. The baseline keeps every node id pytest reported when the session started (with how it
ended); each later full run must report each of them again. A test that is gone — deleted,
renamed, moved, deselected by a new hook, no longer collected — is a finding naming the id.
New tests are welcome, so a rename shows as one test gone plus one new test, and says so.
A file that fails to collect is the tests check's failure, not a vanished test each.
"""

from __future__ import annotations

from ralph_verify.checks.api import Failure
from ralph_verify.integrity.renames import Judged
from ralph_verify.recorder.read import COLLECTION_ERROR

#: Vanished ids listed one by one; the rest are counted in one more finding.
MAX_LISTED = 20


def vanished_tests(then: dict[str, str], now: dict[str, str],
                   judged: Judged | None = None) -> list[Failure]:
    """A finding per test id of ``then`` missing from ``now``; ``judged`` says how the source
    comparison saw the test functions that went (renamed: its id must run under the new
    name; deleted with its feature, or already reported as removed: no second finding)."""
    broken = {test_id for test_id, how in now.items() if how == COLLECTION_ERROR}
    gone = [test_id for test_id in then
            if then[test_id] != COLLECTION_ERROR and test_id not in now
            and not _under(test_id, broken) and not _explained(test_id, now, judged)]
    if not gone:
        return []
    new = [test_id for test_id in now if test_id not in then and now[test_id] != COLLECTION_ERROR]
    hint = (f"; {len(new)} new test(s) appeared (a rename shows as gone + new: keep the "
            "test's id)" if new else "")
    failures = []
    for test_id in gone[:MAX_LISTED]:
        path = test_id.split("::", 1)[0]
        failures.append(Failure(
            message=f"test {test_id} ({then[test_id]} at the session's start) is gone: "
                    "deleted, renamed, moved or deselected; every test the session started "
                    f"with must still run — restore it{hint}",
            location=path, path=path, code="vanished-test"))
    if len(gone) > MAX_LISTED:
        failures.append(Failure(
            message=f"{len(gone) - MAX_LISTED} more tests present at the session's start are "
                    f"gone{hint}", code="vanished-test"))
    return failures


def _under(test_id: str, collectors: set[str]) -> bool:
    """Whether ``test_id`` lives in a collector (a file or folder) that failed to collect."""
    return any(test_id == c or test_id.startswith((c + "::", c.rstrip("/") + "/"))
               for c in collectors)


def _function(test_id: str) -> str:
    """``tests/t.py::Class::test_x`` for ``tests/t.py::Class::test_x[1-2]``."""
    return test_id.split("[", 1)[0]


def _explained(test_id: str, now: dict[str, str], judged: Judged | None) -> bool:
    """Whether the source comparison accounts for ``test_id`` being gone."""
    if judged is None:
        return False
    function = _function(test_id)
    if function in judged.removed or function in judged.feature:
        return True
    renamed = judged.renamed.get(function)
    return renamed is not None and renamed + test_id[len(function):] in now
