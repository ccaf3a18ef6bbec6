"""The units of a Python file for affected-tests-first: its top-level functions and methods,
each with a hash of its header and of its body, and the rest of the file (the *skeleton*).
Hashed without positions: a moved function or a new comment changes nothing."""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass

#: The unit of code outside every function: module level and class bodies.
MODULE = "<module>"


@dataclass(frozen=True)
class Unit:
    """A function or class of a module: its lines, and its header and body text."""

    key: str
    start: int
    end: int
    header: str
    body: str


@dataclass(frozen=True)
class Units:
    """The units of one file, in source order, and the hash of everything else."""

    skeleton: str
    units: tuple[Unit, ...]

    def unit_at(self, line: int) -> str:
        """The unit whose span holds ``line`` (a code object's first line), else MODULE."""
        for unit in self.units:
            if unit.start <= line <= unit.end:
                return unit.key
        return MODULE

    def to_json(self) -> dict[str, object]:
        return {"skeleton": self.skeleton,
                "units": [[u.key, u.start, u.end, u.header, u.body] for u in self.units]}

    @staticmethod
    def from_json(data: dict[str, object]) -> Units:
        rows = data["units"]
        assert isinstance(rows, list)
        return Units(str(data["skeleton"]),
                     tuple(Unit(str(k), int(s), int(e), str(h), str(b)) for k, s, e, h, b in rows))


def _hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


class _Collect(ast.NodeTransformer):
    """Finds the units (outside functions) and replaces each by a placeholder naming it."""

    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.prefix: list[str] = []
        self.seen: dict[str, int] = {}

    def _key(self, name: str) -> str:
        qualname = ".".join([*self.prefix, name])
        count = self.seen[qualname] = self.seen.get(qualname, 0) + 1
        return qualname if count == 1 else f"{qualname}#{count}"

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.prefix.append(node.name)
        try:
            return self.generic_visit(node)
        finally:
            self.prefix.pop()

    def _unit(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        key = self._key(node.name)
        body = "\n".join(ast.dump(stmt) for stmt in node.body)
        node.body = []
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        self.units.append(Unit(key, start, end, _hash(ast.dump(node)), _hash(body)))
        return ast.Expr(ast.Constant(f"unit {key}"))

    visit_FunctionDef = _unit
    visit_AsyncFunctionDef = _unit


def parse(source: str | bytes) -> Units | None:
    """The units of ``source``; ``None`` when it is not Python this interpreter parses."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    collect = _Collect()
    skeleton = collect.visit(tree)
    return Units(_hash(ast.dump(skeleton)), tuple(collect.units))


def bodies_changed(old: Units, new: Units) -> tuple[list[str], str]:
    """The keys of the units whose body changed (maybe none), or ``[]`` and why more than
    bodies changed."""
    before = {u.key: u for u in old.units}
    after = {u.key: u for u in new.units}
    if before.keys() != after.keys():
        added = sorted(after.keys() - before.keys())
        removed = sorted(before.keys() - after.keys())
        return [], (f"def {added[0]} was added" if added else f"def {removed[0]} was removed")
    for key, unit in after.items():
        if unit.header != before[key].header:
            return [], f"the header of {key} changed (decorators, signature or defaults)"
    if old.skeleton != new.skeleton:
        return [], "a module-level or class-level statement changed (or the order of the defs)"
    # Possibly none: comments, blank lines or a def that moved run the same code.
    return [key for key, unit in after.items() if unit.body != before[key].body], ""
