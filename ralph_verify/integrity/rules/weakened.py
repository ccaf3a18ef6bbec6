"""Existing tests may grow, never weaken: a summary of each test function's checks.

A test of the baseline that now makes fewer reached checks, or a new
``pytest.raises(Exception)`` or ``except: pass``, is a ``weakened-test``; a check that cannot
fail or is never run (in any test of a changed file) is found by :mod:`.assertions`."""

from __future__ import annotations

import ast
import hashlib
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure
from ralph_verify.integrity.renames import body_shas, uses
from ralph_verify.integrity.rule import allowed, failure
from ralph_verify.integrity.rules.assertions import IN_OLD_TESTS, quiet, reached, scan_function
from ralph_verify.integrity.rules.assertions import WHY as CANNOT_FAIL
from ralph_verify.integrity.rules.special_cases import function_pairs
from ralph_verify.integrity.sources import is_test_file, parse, test_functions
from ralph_verify.records.integrity import FileFacts, TestBody

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair, Source

_BROAD = ("Exception", "BaseException")
WHY = {"broad-raises": "expects any exception at all; expect the specific one",
       "swallowed": "an except that does nothing swallows the failure"}


def _is_check(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        name = node.func.attr
        return name == "raises" or name.startswith("assert") or name in ("fail", "warns")
    return False


def _weak_spots(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, int, str]]:
    """A check that passes on any error (``pytest.raises(Exception)``) or an error
    swallowed (``except ValueError: pass``); checks that cannot fail are :mod:`.assertions`'
    findings."""
    spots = []
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("raises", "assertRaises") and node.args:
            first = node.args[0]
            names = [e for e in first.elts] if isinstance(first, ast.Tuple) else [first]
            if any(isinstance(n, ast.Name) and n.id in _BROAD for n in names):
                spots.append(("broad-raises", node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ExceptHandler) and quiet(node):
            spots.append(("swallowed", node.lineno, f"except {ast.unparse(node.type)}: pass"
                          if node.type is not None else "except: pass"))
    return spots


def _cases(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """How many times pytest runs ``func``: the product of its literal ``parametrize``
    lists (a test parametrized from two asserts into one makes as many checks)."""
    count = 1
    for decorator in func.decorator_list:
        if isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith(
                "mark.parametrize") and len(decorator.args) > 1 \
                and isinstance(decorator.args[1], (ast.List, ast.Tuple)):
            count *= len(decorator.args[1].elts)
    return count


def summarise(text: str, old: dict[str, TestBody] | None = None) -> dict[str, TestBody]:
    """Test name (``name`` or ``Class.name``) -> what it does; a test whose source is the
    same as in ``old`` (the file's previous summary) is not walked again, only moved to its
    line: an edit to a long test module costs its changed tests."""
    tree = parse(text)
    if tree is None:
        return {}
    lines = text.splitlines()
    found = {}
    for name, func in test_functions(tree):
        segment = "\n".join(lines[func.lineno - 1:func.end_lineno or func.lineno])
        source = hashlib.sha256(segment.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        kept = (old or {}).get(name)
        if kept is not None and kept.src == source:
            shift = func.lineno - kept.line
            found[name] = replace(kept, line=func.lineno, weak=[
                [kind, line + shift, spot] for kind, line, spot in kept.weak], found=[
                [rule, line + shift, spot] for rule, line, spot in kept.found])
            continue
        sha, shape = body_shas(func)
        live = reached(func)  # a check counts where the test's control flow reaches it
        found[name] = TestBody(
            line=func.lineno,
            checks=sum(1 for n in ast.walk(func) if id(n) in live and _is_check(n))
            * _cases(func),
            weak=[[kind, line, source] for kind, line, source in _weak_spots(func)],
            sha=sha, shape=shape, uses=uses(func), src=source,
            found=[[rule, line, spot] for rule, _, line, spot in scan_function(name, func, lines)],
            pairs=[[f, list(a), e] for f, a, e in sorted(function_pairs(func))])
    return found


def facts(src: Source, out: FileFacts) -> None:
    if is_test_file(src.rel):
        out.bodies = summarise(src.text, src.kept.bodies if src.kept is not None else None)


def compare(pair: Pair) -> list[Failure]:
    """Tests of the start that got weaker; checks that cannot fail or are never run, new
    since the start (in new tests too)."""
    before, after = pair.before.test_bodies, pair.after.test_bodies
    failures = []
    for path, tests in sorted(before.items()):
        now_tests = after.get(path, {})
        for name, then in sorted(tests.items()):
            now = now_tests.get(name)
            if now is None:
                continue  # a removed test is reported by the test list comparison
            shown = f"{path}::{name.replace('.', '::')}"
            if now.checks < then.checks:
                failures.append(Failure(
                    message=f"test {shown} makes fewer checks than at the session's start "
                            f"({now.checks} now, {then.checks} then) at "
                            f"{path}:{now.line}: restore them",
                    location=f"{path}:{now.line}", path=path, line=now.line,
                    code="weakened-test"))
            # By kind: the same weak spot re-spelled (``except socket.error: pass`` ->
            # ``except OSError: pass``, a reformat) is not a new one.
            old = Counter(kind for kind, _, _ in then.weak)
            for kind, line, source in now.weak:
                if old[kind] > 0:
                    old[kind] -= 1
                    continue
                failures.append(Failure(
                    message=f"test {shown} was weakened at {path}:{line}: `{source}` "
                            f"{WHY[kind]}",
                    location=f"{path}:{line}", path=path, line=line, detail=source,
                    code="weakened-test"))
    return failures + _cannot_fail(pair)


def _cannot_fail(pair: Pair) -> list[Failure]:
    allow = pair.before.allow
    out = []
    for rel, was, entry in pair.changed():
        for test, body in sorted(entry.bodies.items()):
            before = was.bodies.get(test)
            old = Counter((r, s) for r, _, s in (before.found if before else []))
            shown = f"{rel}::{test.replace('.', '::')}"
            if before is not None and before.checks > 0 and body.checks == 0 \
                    and not allowed(rel, "checks-removed", test, allow):
                out.append(failure(rel, body.line, "checks-removed",
                                   f"test {shown} {CANNOT_FAIL['checks-removed']}"))
            for rule, at, source in body.found:
                if old[(rule, source)] > 0:
                    old[(rule, source)] -= 1
                    continue
                if rule == IN_OLD_TESTS:
                    if before is None:
                        continue
                    rule = "self-compare"
                if not allowed(rel, rule, test, allow):
                    out.append(failure(rel, at, rule, f"`{source}` in test {shown} "
                                       f"{CANNOT_FAIL[rule]}", source))
    return out
