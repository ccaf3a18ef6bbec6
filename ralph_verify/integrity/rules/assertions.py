"""Assertions that cannot fail, found on the AST of test functions: the one detector, for
the start's tests and new ones alike.

Conservative on purpose: ``assert s >= s`` on the project's own class tests its operator and
``assert x == x`` is how a test says "not NaN", so a name compared with itself is flagged only
when it holds a literal or a builtin value, or through ``is`` (which no class can override);
so is the same call of literals on both sides (``f(2) == f(2)``), unless it builds an object."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterator
from typing import Any

from ralph_verify.integrity.sources import source_line

WHY = {
    "constant-true": "is true whatever the code does, so it can never fail; assert the "
                     "expected value",
    "or-constant": "is or-ed with a true constant, so it can never fail; drop the `or ...`",
    "self-compare": "compares a value with itself, so it can never fail; compare with the "
                    "expected value",
    "swallowed-assert": "sits under an exception handler that ignores the failure, so it "
                        "can never fail the test; let the AssertionError through",
    "checks-removed": "no longer checks anything (every assertion was removed or is never "
                      "reached); restore the assertions",
    "dead-assert": "is never run: no path through the test reaches it (a constant false "
                   "condition, an empty loop, code after a return, a function never called); "
                   "put the check where the test runs it",
}
_BUILTINS = frozenset({"int", "float", "str", "bytes", "bool", "list", "dict", "set", "tuple",
                       "frozenset", "len", "sorted", "range", "abs", "min", "max", "sum",
                       "repr", "round"})
_BROAD = frozenset({"AssertionError", "Exception", "BaseException"})
_ASSERT_METHODS = frozenset({"assertTrue", "assert_", "failUnless"})
_EQUAL_METHODS = frozenset({"assertEqual", "assertEquals", "assertIs", "assertGreaterEqual",
                            "assertLessEqual", "assertCountEqual", "assertListEqual",
                            "assertDictEqual", "assertSetEqual", "assertTupleEqual"})
Finding = tuple[str, str, int, str]  # (rule, test, line, source)
#: ``x = f(); assert x == x``: a ``self-compare`` where a test of the start had a real check
#: (in a new test it is the NaN check).
IN_OLD_TESTS = "self-compare-in-old-test"


def truthy_constant(node: ast.expr) -> bool:
    """Whether ``node`` is true on every run: a truthy literal, a non-empty display."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.Constant) and v.value for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return isinstance(node.operand, ast.Constant) and not node.operand.value
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return all(truthy_constant(v) for v in node.values)
    if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) \
            and all(isinstance(c, ast.Constant) for c in node.comparators):
        return _constant_compare(node)
    return False


OPERATORS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
        ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
        ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b,
        ast.NotIn: lambda a, b: a not in b}


def _constant_compare(node: ast.Compare) -> bool:
    """``2 == 2``: a comparison of literals that holds."""
    values = [v.value for v in (node.left, *node.comparators) if isinstance(v, ast.Constant)]
    try:
        return all(bool(OPERATORS[type(op)](a, b))
                   for op, a, b in zip(node.ops, values, values[1:], strict=False))
    except (TypeError, KeyError):  # 1 < "a": not a constant truth
        return False


def _literal_names(func: ast.AST) -> set[str]:
    """Names a test binds only to literals or builtin calls (their ``==`` is not the
    project's)."""
    plain: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            simple = isinstance(value, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set,
                                        ast.JoinedStr)) \
                or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                    and value.func.id in _BUILTINS)
            for target in targets:
                if isinstance(target, ast.Name):
                    (plain if simple else other).add(target.id)
        elif isinstance(node, (ast.For, ast.With, ast.NamedExpr, ast.AugAssign)):
            other.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                         and isinstance(n.ctx, ast.Store))
        elif isinstance(node, ast.arguments):
            other.update(a.arg for a in (*node.posonlyargs, *node.args, *node.kwonlyargs))
    return plain - other


def _built(func: ast.AST) -> set[str]:
    """Names a test binds to an object it builds from a class (``s = Money(1)``)."""
    return {target.id for node in ast.walk(func) if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call) and (
                node.value.func.attr if isinstance(node.value.func, ast.Attribute)
                else getattr(node.value.func, "id", ""))[:1].isupper()
            for target in node.targets if isinstance(target, ast.Name)}


def _same_value(left: ast.expr, right: ast.expr, literals: set[str], op: ast.cmpop) -> bool:
    if ast.dump(left) != ast.dump(right):
        return False
    if isinstance(op, (ast.Is,)) and isinstance(left, (ast.Name, ast.Attribute)):
        return True  # identity: no class can make ``x is x`` false
    if isinstance(left, ast.Constant):
        return True
    if isinstance(left, ast.Call) and not isinstance(op, ast.Is):
        # ``f(2) == f(2)``; not ``Money(1) == Money(1)`` (its class's ``__eq__``) nor
        # ``hash(v) == hash(v)`` (``v``'s own ``__hash__``).
        name = left.func.attr if isinstance(left.func, ast.Attribute) else \
            left.func.id if isinstance(left.func, ast.Name) else ""
        return not name[:1].isupper() and all(
            isinstance(a, ast.Constant) or (isinstance(a, ast.Name) and a.id in literals)
            for a in (*left.args, *(k.value for k in left.keywords)))
    return isinstance(left, ast.Name) and left.id in literals


def _conditions(node: ast.AST) -> Iterator[tuple[ast.expr, ast.AST]]:
    """The expression each check asserts: ``assert X`` and ``self.assertTrue(X)``."""
    if isinstance(node, ast.Assert):
        yield node.test, node
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in _ASSERT_METHODS and node.args:
        yield node.args[0], node


def _checks_in(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.walk(node):
        if isinstance(child, ast.Assert) or (
                isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                and child.func.attr.startswith("assert")):
            yield child


def _constant(node: ast.expr) -> bool | None:
    """The truth of a condition that is the same on every run, ``None`` when it is not."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _constant(node.operand)
        return None if inner is None else not inner
    return None


def _empty(node: ast.expr) -> bool:
    """An iterable that never yields: an empty display or string, ``range(0)``."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return not node.elts
    if isinstance(node, ast.Dict):
        return not node.keys
    if isinstance(node, ast.Constant):
        return node.value in ("", b"")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("range", "list", "tuple", "set", "dict") \
            and all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in node.args):
        values = [a.value for a in node.args
                  if isinstance(a, ast.Constant) and isinstance(a.value, int)]
        return not values if node.func.id != "range" else len(range(*values)) == 0
    return False


def _flow(body: list[ast.stmt], out: list[ast.AST]) -> None:
    """Add to ``out`` what running ``body`` can reach: statements and conditions, not the
    branches a constant condition or an empty loop never enters, nor what follows a
    ``return``/``raise``; nested definitions are added whole, to be followed if called."""
    for stmt in body:
        if isinstance(stmt, (ast.If, ast.While)):
            out.append(stmt.test)
            value = _constant(stmt.test)
            if value is not False:
                _flow(stmt.body, out)
            if value is not True:
                _flow(stmt.orelse, out)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            out.append(stmt.iter)
            if not _empty(stmt.iter):
                _flow(stmt.body, out)
            _flow(stmt.orelse, out)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            out.extend(item.context_expr for item in stmt.items)
            _flow(stmt.body, out)
        elif isinstance(stmt, (ast.Try, ast.TryStar)):
            for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse,
                         stmt.finalbody):
                _flow(part, out)
        elif isinstance(stmt, ast.Match):
            out.append(stmt.subject)
            for case in stmt.cases:
                _flow(case.body, out)
        else:
            out.append(stmt)
        if isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
            return


def reached(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """Ids of the nodes a call of ``func`` can run: its control flow, and the bodies of the
    functions it defines and then calls (or hands on by name)."""
    nodes: list[ast.AST] = []
    _flow(func.body, nodes)
    seen: set[int] = set()
    pending = list(nodes)
    while pending:
        node = pending.pop()
        defined = [n for n in ast.walk(node)
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        inner = {id(x) for d in defined for x in ast.walk(d) if x is not d}
        for child in ast.walk(node):
            if id(child) not in inner:
                seen.add(id(child))
        for definition in defined:
            used = any(isinstance(n, ast.Name) and n.id == definition.name
                       and isinstance(n.ctx, ast.Load) for other in nodes
                       for n in ast.walk(other) if id(n) in seen)
            if used and id(definition.body[0]) not in seen:
                more: list[ast.AST] = []
                _flow(definition.body, more)
                nodes.extend(more)
                pending.extend(more)
    return seen


def quiet(handler: ast.ExceptHandler) -> bool:
    """A handler that does nothing with what it catches (``pass``, a constant, a print)."""
    return all(isinstance(s, (ast.Pass, ast.Continue, ast.Break)) or (
        isinstance(s, ast.Expr) and (isinstance(s.value, ast.Constant)
                                     or (isinstance(s.value, ast.Call)
                                         and isinstance(s.value.func, ast.Name)
                                         and s.value.func.id == "print")))
        for s in handler.body)


def _broad(kinds: list[ast.expr]) -> bool:
    return any((isinstance(k, ast.Name) and k.id in _BROAD)
               or (isinstance(k, ast.Attribute) and k.attr in _BROAD) for k in kinds)


def _ignores(handler: ast.ExceptHandler) -> bool:
    """A handler that catches assertion failures and does nothing with them."""
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return (handler.type is None or _broad([k for k in kinds if k is not None])) \
        and quiet(handler)


def _suppresses(item: ast.withitem) -> bool:
    call = item.context_expr
    return isinstance(call, ast.Call) and (
        (isinstance(call.func, ast.Attribute) and call.func.attr == "suppress")
        or (isinstance(call.func, ast.Name) and call.func.id == "suppress")) \
        and _broad(call.args)


def scan_function(name: str, func: ast.AST, lines: list[str]) -> list[Finding]:
    """The cannot-fail checks of one test function."""
    found: list[Finding] = []
    literals = _literal_names(func)

    def add(rule: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", 1)
        found.append((rule, name, line, source_line(lines, line)))

    swallowed: set[int] = set()
    live = reached(func) if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else None
    dead = {id(c) for c in _checks_in(func) if live is not None and id(c) not in live}
    for node in ast.walk(func):
        if id(node) in dead:
            add("dead-assert", node)
            continue
        if (isinstance(node, ast.Try) and any(_ignores(h) for h in node.handlers)) or (
                isinstance(node, ast.With) and any(_suppresses(i) for i in node.items)):
            swallowed.update(id(c) for stmt in node.body for c in _checks_in(stmt))
    for node in ast.walk(func):
        if id(node) in swallowed:
            add("swallowed-assert", node)
            continue
        for test, where in _conditions(node):
            if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) \
                    and any(truthy_constant(v) for v in test.values):
                add("or-constant", where)
            elif truthy_constant(test):
                add("constant-true", where)
            elif isinstance(test, ast.Compare) and len(test.ops) == 1 \
                    and isinstance(test.ops[0], (ast.Eq, ast.Is, ast.GtE, ast.LtE)) \
                    and _same_value(test.left, test.comparators[0], literals, test.ops[0]):
                add("self-compare", where)
            elif isinstance(test, ast.Compare) and len(test.ops) == 1 \
                    and isinstance(test.ops[0], ast.Eq) and isinstance(test.left, ast.Name) \
                    and ast.dump(test.left) == ast.dump(test.comparators[0]) \
                    and test.left.id not in _built(func):
                add(IN_OLD_TESTS, where)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _EQUAL_METHODS and len(node.args) >= 2 \
                and _same_value(node.args[0], node.args[1], literals, ast.Eq()):
            add("self-compare", node)
    return found
