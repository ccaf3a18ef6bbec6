"""Changed source that games the tests: an AST scan of non-test files for the ways of
:data:`WHY`. Only what is new since the baseline counts; ``allow`` exempts legitimate code."""

from __future__ import annotations

import ast
from collections import Counter
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.api import Failure
from ralph_verify.integrity.rule import allowed
from ralph_verify.integrity.sources import is_test_code, is_test_file, parse, source_line

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair, Source
    from ralph_verify.records.integrity import FileFacts, Picture

WHY = {
    "constant-eq": "always gives the same answer, so every comparison in the tests "
                   "passes whatever the value; compare the real fields",
    "forced-bool": "is always true, so every `assert obj` passes; compute it",
    "special-case": "compares the arguments with the literals the tests use and returns a "
                    "canned answer; implement the general rule",
    "call-stack": "reads the call stack to find out who is calling (a test?); behave the same "
                  "for every caller",
    "pytest-internals": "looks at pytest from non-test code, so it can behave differently "
                        "under test; remove it",
    "time-patch": "replaces a function of the time module for everyone; pass the clock in "
                  "instead",
}
_STACK = {("inspect", "stack"), ("inspect", "currentframe"), ("inspect", "getouterframes"),
          ("sys", "_getframe"), ("traceback", "extract_stack"), ("traceback", "format_stack"),
          ("traceback", "print_stack"), ("traceback", "walk_stack")}


def is_source(path: str) -> bool:
    """A Python file of the product (see :func:`.sources.is_test_code`)."""
    return path.endswith(".py") and not is_test_code(path)


def is_literal(value: Any) -> bool:
    """A number or string a test may be special-cased on (not a boolean)."""
    return isinstance(value, (int, float, str)) and not isinstance(value, bool)


def _returns_constant(func: ast.FunctionDef | ast.AsyncFunctionDef,
                      values: tuple[bool, ...] = (True, False)) -> bool:
    """``return True``/``return False`` (of ``values``) as the whole body; a ``__bool__``
    that is always false (a falsy sentinel) makes no ``assert obj`` pass."""
    body = [s for s in func.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Return) \
        and isinstance(body[0].value, ast.Constant) and body[0].value.value in values \
        and isinstance(body[0].value.value, bool)


def _arg_literal(node: ast.expr, args: set[str]) -> Any:
    """The literal an ``arg == literal`` comparison checks, else ``None``."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
        left, right = node.left, node.comparators[0]
        for a, b in ((left, right), (right, left)):
            if isinstance(a, ast.Name) and a.id in args and isinstance(b, ast.Constant) \
                    and is_literal(b.value):
                return b.value
    return None


def with_literals(raw: list[list[Any]], literals: set[Any] | None
                  ) -> list[tuple[str, int, str, str]]:
    """The findings of :func:`scan_raw` that stand: a branch on exact values only when every
    value is one of the tests' ``literals``."""
    return [(rule, line, scope, source) for rule, line, scope, source, *values in raw
            if rule != "special-case" or (literals is not None and all(
                v in literals for v in values[0]))]


def scan_raw(text: str) -> list[list[Any]]:
    """:func:`scan`'s findings before the tests' literals are known, as JSON-ready lists: a
    ``special-case`` candidate carries the values its branch compares with, so a file's
    findings can be kept by its hash while the tests change."""
    tree = parse(text)
    if tree is None:
        return []
    lines = text.splitlines()
    found: list[list[Any]] = []
    # Reading the stack is common (warnings, debuggers); telling tests apart needs "test".
    # Docstrings do not count: a doctest's ``make_sentinel('TEST')`` tells no test apart.
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    mentions_test = any(isinstance(n, ast.Constant) and isinstance(n.value, str)
                        and id(n) not in docstrings and "test" in n.value.lower()
                        for n in ast.walk(tree))

    def add(rule: str, node: ast.AST, scope: str, *values: Any) -> None:
        line = getattr(node, "lineno", 1)
        found.append([rule, line, scope, source_line(lines, line),
                      *([list(values)] if rule == "special-case" else [])])

    def visit(node: ast.AST, scope: str, args: set[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if child.name in ("__eq__", "__ne__") and _returns_constant(child):
                    add("constant-eq", child, child.name)
                elif child.name == "__bool__" and _returns_constant(child, (True,)):
                    add("forced-bool", child, child.name)
                names = {a.arg for a in (*child.args.posonlyargs, *child.args.args,
                                         *child.args.kwonlyargs)} - {"self", "cls"}
                visit(child, child.name, names)
                continue
            if isinstance(child, ast.If) and isinstance(child.test, ast.BoolOp) \
                    and isinstance(child.test.op, ast.And):
                hits = [_arg_literal(v, args) for v in child.test.values]
                if len(hits) >= 2 and all(h is not None for h in hits) \
                        and any(isinstance(s, ast.Return) for s in child.body):
                    add("special-case", child, scope, *hits)
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and isinstance(child.func.value, ast.Name) \
                    and (child.func.value.id, child.func.attr) in _STACK and mentions_test:
                add("call-stack", child, scope)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in child.names] if isinstance(child, ast.Import) \
                    else [child.module or ""]
                if any(m.split(".")[0] in ("pytest", "_pytest") for m in modules):
                    add("pytest-internals", child, scope)
            elif isinstance(child, ast.Constant) and child.value == "PYTEST_CURRENT_TEST":
                add("pytest-internals", child, scope)
            elif isinstance(child, ast.Assign) and any(
                    isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                    and t.value.id == "time" for t in child.targets):
                add("time-patch", child, scope)
            visit(child, scope, args)

    visit(tree, "", set())
    return found


def new_findings(old: list[tuple[str, int, str, str]], new: list[tuple[str, int, str, str]]
                 ) -> list[tuple[str, int, str, str]]:
    """Findings of ``new`` that ``old`` (the same file before) did not have."""
    then = Counter((rule, source) for rule, _, _, source in old)
    fresh = []
    for finding in new:
        key = (finding[0], finding[3])
        if then[key] > 0:
            then[key] -= 1
        else:
            fresh.append(finding)
    return fresh


def facts(src: Source, out: FileFacts) -> None:
    """A source file's findings (before the tests' literals are known); the numbers and
    strings a test file writes."""
    if is_source(src.rel):
        out.scan = scan_raw(src.text)
    elif is_test_file(src.rel) and src.tree is not None:
        out.literals = sorted({n.value for n in ast.walk(src.tree)
                               if isinstance(n, ast.Constant) and is_literal(n.value)},
                              key=repr)


def compare(pair: Pair) -> list[Failure]:
    """New findings in source files changed since the start."""
    def literals(picture: Picture) -> set[Any]:
        return {v for rel in picture.tests
                for v in (picture.facts.files[rel].literals if picture.facts else [])}

    then_literals, now_literals = literals(pair.before), literals(pair.after)
    failures = []
    for path, then, now in pair.changed():
        if now.scan is not None:
            fresh = new_findings(with_literals(then.scan or [], then_literals),
                                 with_literals(now.scan, now_literals))
            failures += _failures(path, fresh, pair.before.allow)
    return failures


def _failures(path: str, findings: list[tuple[str, int, str, str]],
              allow: list[str]) -> list[Failure]:
    return [Failure(message=f"{path}:{line}: `{source}` {WHY[rule]} ({rule}; allow it with "
                            f"allow = [\"{path}:{scope or rule}\"] in "
                            "[tool.ralph-verify.checks.integrity] if it is legitimate)",
                    location=f"{path}:{line}", path=path, line=line, detail=source,
                    code="gaming")
            for rule, line, scope, source in findings
            if not allowed(path, rule, scope, allow)]
