"""The mutants of chosen lines of a module, and one *switched* module that holds them all.

Own code, standard library only (it is copied into the project's pytest): mutmut and
cosmic-ray write into the project and take no "these lines". Each mutated node becomes
``(mutant if __ralph_verify_mutant__(id) else original)``; ids follow source order."""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence
from dataclasses import dataclass

#: The module-global name the switched code calls: ``__x__`` names are never mangled.
SWITCH = "__ralph_verify_mutant__"

_BINARY: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div, ast.Mod: ast.Div, ast.Pow: ast.Mult, ast.LShift: ast.RShift,
    ast.RShift: ast.LShift, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitAnd,
}
_COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_SYMBOL: dict[type[ast.AST], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
    ast.BitXor: "^", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
    ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
    ast.And: "and", ast.Or: "or",
}
_SHOWN = 60


@dataclass(frozen=True)
class Mutant:
    """One change: its id, its line, and what it replaces by what (or removes)."""

    id: int
    line: int
    old: str
    new: str | None

    def describe(self) -> str:
        if self.new is None:
            return f"removing `{self.old}`"
        return f"replacing `{self.old}` by `{self.new}`"


@dataclass
class Switched:
    """A module's mutants, its switched tree (``None``: it does not parse), and the changed
    lines that hold code outside every function (not mutated)."""

    mutants: list[Mutant]
    tree: ast.Module | None
    outside: list[int]


def switched(source: str, lines: Collection[int], first_id: int = 1,
             only: Collection[int] | None = None) -> Switched:
    """The mutants of ``lines`` of ``source``, numbered from ``first_id``, and the tree with
    each behind its switch (``only``: switch just those ids; the others are still numbered)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return Switched([], None, [])
    maker = _Maker(source, frozenset(lines), first_id, only)
    maker.visit(tree)  # in place: a module is never replaced
    ast.fix_missing_locations(tree)
    return Switched(maker.mutants, tree, sorted(maker.outside))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


class _Maker(ast.NodeTransformer):
    """Walks a module: function bodies on the chosen lines get their mutants switched in."""

    def __init__(self, source: str, lines: frozenset[int], first_id: int,
                 only: Collection[int] | None) -> None:
        self.source = source
        self.lines = lines
        self.next_id = first_id
        self.only = only
        self.mutants: list[Mutant] = []
        self.outside: set[int] = set()
        self.depth = 0

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        self.depth += 1
        node.body = self._statements(node.body)
        self.depth -= 1
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def _statements(self, body: list[ast.stmt]) -> list[ast.stmt]:
        result: list[ast.stmt] = []
        for statement in body:
            new = self.visit(statement)
            result.extend(new if isinstance(new, list) else [new] if isinstance(new, ast.stmt)
                          else [])
        return result

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.body = self._statements(node.body)
        return node

    def visit(self, node: ast.AST) -> ast.AST | list[ast.stmt]:
        if self.depth == 0 and isinstance(node, ast.stmt) and not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if self._changed(node):
                self.outside.add(node.lineno)
            if not isinstance(node, (ast.If, ast.With, ast.Try)):
                return node  # module-level code: only defs under if/with/try are looked into
        result: ast.AST | list[ast.stmt] = super().visit(node)
        return result

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if self.depth == 0 and not isinstance(node, (ast.Module, ast.stmt,
                                                      ast.excepthandler)):
            return node  # an expression at module level: run at import, not mutated
        return super().generic_visit(node)

    def _changed(self, node: ast.AST) -> bool:
        return getattr(node, "lineno", None) in self.lines

    def _here(self, node: ast.AST) -> bool:
        return self.depth > 0 and self._changed(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return node  # an f-string's parts must stay constants and formatted values

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self._expression(node.value)
        return node

    def visit_match_case(self, node: ast.match_case) -> ast.AST:
        if node.guard is not None:
            node.guard = self._expression(node.guard)
        node.body = self._statements(node.body)
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        node.body = self._expression(node.body)  # not its defaults
        return node

    def _expression(self, node: ast.expr) -> ast.expr:
        new = self.visit(node)
        assert isinstance(new, ast.expr)
        return new

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        other = _BINARY.get(type(node.op))
        if other is None or not self._here(node):
            return node
        return self._switch(node, [(ast.BinOp(left=node.left, op=other(), right=node.right),
                                    _SYMBOL[type(node.op)], _SYMBOL[other])])

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if not self._here(node):
            return node
        choices: list[tuple[ast.expr, str, str | None]] = []
        for index, op in enumerate(node.ops):
            other = _COMPARE.get(type(op))
            if other is not None:
                ops = [*node.ops[:index], other(), *node.ops[index + 1:]]
                choices.append((ast.Compare(left=node.left, ops=ops,
                                            comparators=node.comparators),
                                _SYMBOL[type(op)], _SYMBOL[other]))
        return self._switch(node, choices)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if not self._here(node):
            return node
        other: ast.boolop = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return self._switch(node, [(ast.BoolOp(op=other, values=node.values),
                                    _SYMBOL[type(node.op)], _SYMBOL[type(other)])])

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not) or not self._here(node):
            return node
        text = self._text(node)
        return self._switch(node, [(node.operand, text, _short(text[3:].lstrip()))])

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if not self._here(node):
            return node
        value = node.value
        new: object
        if isinstance(value, bool):
            new = not value
        elif isinstance(value, (int, float)):
            new = value + 1
        elif isinstance(value, str):
            new = f"XX{value}XX"
        else:
            return node
        return self._switch(node, [(ast.Constant(value=new), self._text(node), repr(new))])

    def visit_Expr(self, node: ast.Expr) -> ast.AST | list[ast.stmt]:
        value = node.value
        if isinstance(value, ast.Constant):
            return node  # a docstring, or a bare constant: nothing runs
        self.generic_visit(node)
        call = value.value if isinstance(value, ast.Await) else value
        if not isinstance(call, ast.Call) or not self._here(node):
            return node
        mutant = self._new(node, self._text(node), None)
        if mutant is None:
            return node
        guard = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=self._call(mutant, node)),
                       body=[node], orelse=[])
        return ast.copy_location(guard, node)

    def visit_Return(self, node: ast.Return) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        value = node.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None) \
                or not self._here(node):
            return node
        mutant = self._new(node, self._text(node), "return None")
        if mutant is None:
            return node
        early = ast.copy_location(ast.Return(value=ast.Constant(value=None)), node)
        return [ast.copy_location(ast.If(test=self._call(mutant, node), body=[early],
                                         orelse=[]), node), node]

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        other = _BINARY.get(type(node.op))
        if other is None or not self._here(node):
            return node
        old = _SYMBOL[type(node.op)] + "="
        mutant = self._new(node, old, _SYMBOL[other] + "=")
        if mutant is None:
            return node
        changed = ast.copy_location(ast.AugAssign(target=node.target, op=other(),
                                                  value=node.value), node)
        return ast.copy_location(ast.If(test=self._call(mutant, node), body=[changed],
                                        orelse=[node]), node)

    def _text(self, node: ast.AST) -> str:
        return _short(ast.get_source_segment(self.source, node) or ast.unparse(node))

    def _new(self, node: ast.AST, old: str, new: str | None) -> Mutant | None:
        """Number a mutant; ``None`` when it is numbered but not switched (``only``)."""
        mutant = Mutant(self.next_id, getattr(node, "lineno", 0), old, new)
        self.next_id += 1
        self.mutants.append(mutant)
        return mutant if self.only is None or mutant.id in self.only else None

    def _call(self, mutant: Mutant, where: ast.AST) -> ast.expr:
        call = ast.Call(func=ast.Name(id=SWITCH, ctx=ast.Load()),
                        args=[ast.Constant(value=mutant.id)], keywords=[])
        return ast.copy_location(call, where)

    def _switch(self, node: ast.expr,
                choices: Sequence[tuple[ast.expr, str, str | None]]) -> ast.expr:
        result = node
        made = [(self._new(node, old, new), replacement) for replacement, old, new in choices]
        for mutant, replacement in reversed(made):
            if mutant is not None:
                ast.copy_location(replacement, node)
                result = ast.copy_location(
                    ast.IfExp(test=self._call(mutant, node), body=replacement, orelse=result),
                    node)
        return result
