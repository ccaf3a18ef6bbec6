"""Removed tests: a test of the session's start gone for no reason the tree shows (renamed,
moved, split, parametrized and deleted-with-its-feature tests are notes, see
:mod:`ralph_verify.integrity.renames`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure
from ralph_verify.integrity import renames
from ralph_verify.integrity.rules.gaming import is_source
from ralph_verify.integrity.sources import find_tests, is_test_file

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair, Source
    from ralph_verify.records.integrity import FileFacts

MAX_REPORTED_TESTS = 20


def facts(src: Source, out: FileFacts) -> None:
    """A test file's tests; the names a source file defines and how often it speaks of
    deprecation (a test gone with its feature)."""
    if is_test_file(src.rel):
        out.tests = find_tests(src.text)
        out.parses = src.tree is not None
    if is_source(src.rel):
        out.defined = sorted(renames.defined(src.text))
        out.deprecations = renames.deprecations(src.text)


def compare(pair: Pair) -> list[Failure]:
    """Removed tests; renamed ones and those deleted with their feature go to the notes."""
    judged = pair.tests
    pair.notes += renames.notes(judged)
    failures = []
    then, now = pair.before.test_total, pair.after.test_total
    if judged.removed and now < then:
        failures.append(Failure(
            message=f"fewer tests than at the session's start: {now} test functions now, "
                    f"{then} then; restore the tests, do not delete them to pass",
            code="fewer-tests"))
    removed = sorted(judged.removed.items(), key=lambda item: item[1])
    for key, (path, line) in removed[:MAX_REPORTED_TESTS]:
        failures.append(Failure(
            message=f"test {key} was removed (it was at line {line} at the session's "
                    "start): restore it; a renamed test keeps its body, a test deleted with "
                    "its feature uses a name gone from the project",
            location=f"{path}:{line}", path=path, line=line, code="removed-test"))
    if len(removed) > MAX_REPORTED_TESTS:
        failures.append(Failure(message=f"{len(removed) - MAX_REPORTED_TESTS} more tests were "
                                        "removed", code="removed-test"))
    return failures
