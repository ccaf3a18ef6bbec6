"""Is a new skip or xfail a skip *here*, and whose tests does it take out?

A marker whose condition is false on this machine skips nothing; one that applies only to
tests the session did not start with hides none of the baseline's. Conditions are evaluated
by a small interpreter of their AST (platform, version, environment, the module's own names
assigned from those), never by running project code; anything else is unknown, hence a skip."""

from __future__ import annotations

import ast
import importlib.util
import os
import platform
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ralph_verify.integrity import parsed
from ralph_verify.integrity.renames import judge as judge_tests
from ralph_verify.integrity.renames import test_key
from ralph_verify.integrity.rules.assertions import OPERATORS

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair

_UNKNOWN = object()
_COMPARE = {op: f for op, f in OPERATORS.items() if op not in (ast.Is, ast.IsNot)}
_VALUES: dict[str, Any] = {
    "sys.version_info": tuple(sys.version_info), "sys.platform": sys.platform,
    "os.name": os.name, "sys.implementation.name": sys.implementation.name,
    "sys.maxsize": sys.maxsize, "sys.byteorder": sys.byteorder, "os.environ": os.environ,
    "sys.flags.optimize": sys.flags.optimize,
}
_CALLS: dict[str, Callable[..., Any]] = {
    "platform.system": platform.system, "platform.python_implementation":
    platform.python_implementation, "platform.machine": platform.machine,
    "os.environ.get": os.environ.get, "os.getenv": os.getenv,
    "platform.python_version": platform.python_version,
}
_SKIPS = ("skipif", "skipIf", "xfail")
_SKIP_UNLESS = ("skipUnless",)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


class _Eval:
    """Evaluates a condition; module-level assignments of the file are its names."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: dict[str, ast.expr] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                self.names[node.targets[0].id] = node.value
        self.env = False
        self.depth = 0

    def __call__(self, node: ast.expr) -> Any:
        self.depth += 1
        try:
            return _UNKNOWN if self.depth > 50 else self._eval(node)
        finally:
            self.depth -= 1

    def _eval(self, node: ast.expr) -> Any:
        dotted = _dotted(node)
        if dotted in _VALUES:
            self.env |= dotted == "os.environ"
            return _VALUES[dotted]
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Tuple):
            items = [self(e) for e in node.elts]
            return _UNKNOWN if _UNKNOWN in items else tuple(items)
        if isinstance(node, ast.Name) and node.id in self.names:
            return self(self.names[node.id])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            value = self(node.operand)
            return _UNKNOWN if value is _UNKNOWN else not value
        if isinstance(node, ast.BoolOp):
            values = [self(v) for v in node.values]
            if _UNKNOWN in values:
                return _UNKNOWN
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.Subscript):
            value, index = self(node.value), self._index(node.slice)
            try:
                return _UNKNOWN if _UNKNOWN in (value, index) else value[index]
            except (TypeError, KeyError, IndexError):
                return _UNKNOWN
        if isinstance(node, ast.Call) and not node.keywords:
            name = _dotted(node.func)
            args = [self(a) for a in node.args]
            if name in _CALLS and _UNKNOWN not in args:
                self.env |= name.startswith(("os.environ", "os.getenv"))
                return _CALLS[name](*args)
        return _UNKNOWN

    def _index(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Slice):
            parts = [self(p) if p is not None else None
                     for p in (node.lower, node.upper, node.step)]
            return _UNKNOWN if _UNKNOWN in parts else slice(*parts)
        return self(node)

    def _compare(self, node: ast.Compare) -> Any:
        left = self(node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self(right_node)
            if _UNKNOWN in (left, right) or type(op) not in _COMPARE:
                return _UNKNOWN
            try:
                if not _COMPARE[type(op)](left, right):
                    return False
            except TypeError:
                return _UNKNOWN
            left = right
        return True


def _condition(call: ast.Call, name: str) -> ast.expr | None:
    """The condition argument of a skipif/skipIf/skipUnless/xfail call, if it has one."""
    if call.args and not (name == "xfail" and isinstance(call.args[0], ast.Constant)
                          and isinstance(call.args[0].value, str)):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "condition"), None)


def _active(tree: ast.Module, node: ast.AST, parents: dict[ast.AST, ast.AST]) -> tuple[Any, bool]:
    """Whether the marker at ``node`` skips here (True, False or unknown), and whether that
    depends on the environment (an opt-in)."""
    evaluate = _Eval(tree)
    if isinstance(node, ast.Call):
        name = _dotted(node.func).rsplit(".", 1)[-1]
        if name == "importorskip" and node.args and isinstance(node.args[0], ast.Constant):
            module = str(node.args[0].value)
            try:
                return importlib.util.find_spec(module.split(".")[0]) is None, False
            except (ImportError, ValueError):
                return True, False
        if name in _SKIPS or name in _SKIP_UNLESS:
            condition = _condition(node, name)
            if condition is not None:
                value = evaluate(condition)
                if value is not _UNKNOWN and name in _SKIP_UNLESS:
                    value = not value
                return value, evaluate.env
        if name in ("skip", "skipTest", "xfail"):
            guard = parents.get(parents.get(node, node), node)
            if isinstance(guard, ast.If):
                return evaluate(guard.test), evaluate.env
    return True, False


def _marker_node(tree: ast.Module, line: int) -> tuple[ast.AST | None, dict[ast.AST, ast.AST]]:
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    calls = [n for n in ast.walk(tree) if getattr(n, "lineno", 0) == line
             and isinstance(n, (ast.Call, ast.Attribute))]
    calls.sort(key=lambda n: not isinstance(n, ast.Call))
    return (calls[0] if calls else None), parents


def _scope(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[str]:
    """The test names (``name`` or ``Class.name``) a marker applies to; [] for the module."""
    while node in parents and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                    ast.ClassDef)):
        node = parents[node]
    if isinstance(node, ast.ClassDef):
        return [f"{node.name}.{item.name}" for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                and item.name.startswith("test")]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        owner = parents.get(node)
        return [f"{owner.name}.{node.name}" if isinstance(owner, ast.ClassDef) else node.name]
    return []


def judge(text: str, line: int, path: str, pair: Pair) -> str:
    """``"inactive"`` (skips nothing here), ``"new-tests"`` (only tests the session did not
    start with) or ``"skip"``."""
    tree = parsed.tree(text)
    if tree is None:
        return "skip"
    node, parents = _marker_node(tree, line)
    if node is None:
        return "skip"
    active, _ = _active(tree, node, parents)
    if active is False:
        return "inactive"
    names = _scope(node, parents) or list(pair.after.tests.get(path, {}))
    if not names:
        return "new-tests"  # applies to no test at all
    renamed = set(judge_tests(pair.before, pair.after).renamed.values())
    old = {test_key(p, n) for p, tests in pair.before.tests.items() for n in tests}
    keys = [test_key(path, name) for name in names]
    return "new-tests" if all(k not in old and k not in renamed for k in keys) else "skip"
