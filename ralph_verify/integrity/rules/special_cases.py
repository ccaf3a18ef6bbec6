"""Special-casing the tests' inputs: implementation code that embeds the tests' literals.

An implementation that answers ``5`` when it sees ``(2, 3)``, as a branch or a table,
passes ``assert add(2, 3) == 5`` without doing the work. The tests' (arguments, expected)
pairs are matched against the literals a branch compares its parameters with and returns,
and against literal tables (found only when at least half of a table's entries are the
tests' answers: a table of data has many the tests never ask for); base cases (``0``,
``""``...) are trivial."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.api import Failure
from ralph_verify.integrity.rule import allowed, failure
from ralph_verify.integrity.sources import source_line

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair, Source
    from ralph_verify.records.integrity import FileFacts

#: (function, inputs as reprs, expected as repr)
Expected = tuple[str, tuple[str, ...], str]
#: (kind, function, inputs (param=repr or key reprs), output repr, line, source)
Candidate = tuple[str, str, tuple[str, ...], str, int, str]
_TRIVIAL = frozenset({"0", "1", "-1", "''", "True", "False", "None", "0.0", "1.0", "()", "[]",
                      "{}", "2"})
MAX_TABLE = 500
WHY = ("returns the tests' expected value for the tests' exact inputs ({pairs}) instead of "
       "computing it; implement the general rule")


def _literal(node: ast.expr) -> str | None:
    """``repr`` of a literal expression, ``None`` for anything else."""
    try:
        return repr(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _func_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _call_pair(call: ast.expr, other: ast.expr,
               row: dict[str, str]) -> Expected | None:
    if not isinstance(call, ast.Call) or call.keywords:
        return None
    name = _func_name(call.func)
    args = [row.get(a.id) if isinstance(a, ast.Name) else _literal(a) for a in call.args]
    expected = row.get(other.id) if isinstance(other, ast.Name) else _literal(other)
    if name is None or not args or expected is None or any(a is None for a in args):
        return None
    return name, tuple(a for a in args if a is not None), expected


def _rows(func: ast.AST) -> list[dict[str, str]]:
    """The parametrize rows of a test function as name -> repr (one empty row without)."""
    rows: list[dict[str, str]] = []
    for deco in getattr(func, "decorator_list", []):
        if not (isinstance(deco, ast.Call) and _func_name(deco.func) == "parametrize"
                and len(deco.args) >= 2):
            continue
        names_node, values = deco.args[0], deco.args[1]
        names = [n.strip() for n in names_node.value.split(",")] \
            if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str) \
            else [e.value for e in getattr(names_node, "elts", [])
                  if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        for entry in getattr(values, "elts", []):
            items = entry.elts if isinstance(entry, ast.Tuple) and len(names) > 1 else [entry]
            literal = [_literal(i) for i in items]
            if len(literal) == len(names):
                rows.append({n: v for n, v in zip(names, literal, strict=True) if v is not None})
    return rows or [{}]


def function_pairs(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[Expected]:
    """What a test function expects (its ``parametrize`` rows included): ``f(2, 3) == 5``
    gives ``("f", ("2", "3"), "5")``."""
    pairs: set[Expected] = set()
    rows = _rows(func)
    for node in ast.walk(func):
        sides: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Compare) and len(node.ops) == 1 \
                and isinstance(node.ops[0], (ast.Eq, ast.Is)):
            sides = [(node.left, node.comparators[0]), (node.comparators[0], node.left)]
        elif isinstance(node, ast.Call) and _func_name(node.func) == "assertEqual" \
                and len(node.args) >= 2:
            sides = [(node.args[0], node.args[1]), (node.args[1], node.args[0])]
        for call, other in sides:
            for row in rows:
                pair = _call_pair(call, other, row)
                if pair is not None:
                    pairs.add(pair)
    return pairs


def _conditions(test: ast.expr, params: list[str]) -> dict[str, str] | None:
    """``a == 2 and b == 3`` / ``(a, b) == (2, 3)`` -> ``{"a": "2", "b": "3"}``."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
        else [test]
    found: dict[str, str] = {}
    for part in parts:
        if not (isinstance(part, ast.Compare) and len(part.ops) == 1
                and isinstance(part.ops[0], (ast.Eq, ast.Is))):
            return None
        for left, right in ((part.left, part.comparators[0]), (part.comparators[0], part.left)):
            lefts = left.elts if isinstance(left, ast.Tuple) else [left]
            rights = right.elts if isinstance(right, ast.Tuple) else [right]
            names = [x.id for x in lefts if isinstance(x, ast.Name) and x.id in params]
            values = [_literal(r) for r in rights]
            if len(names) == len(lefts) == len(rights) and all(v is not None for v in values):
                found.update({n: v for n, v in zip(names, values, strict=True) if v is not None})
                break
        else:
            return None
    return found


def _returned(body: list[ast.stmt]) -> ast.Return | None:
    return next((s for s in body if isinstance(s, ast.Return) and s.value is not None
                 and _literal(s.value) is not None), None)


def _branches(node: ast.AST, params: list[str], known: dict[str, str]
              ) -> Iterator[tuple[dict[str, str], ast.Return, ast.AST]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If):
            cond = _conditions(child.test, params)
            if cond is not None:
                merged = {**known, **cond}
                ret = _returned(child.body)
                if ret is not None:
                    yield merged, ret, child
                yield from _branches(ast.Module(body=child.body, type_ignores=[]), params,
                                     merged)
                yield from _branches(ast.Module(body=child.orelse, type_ignores=[]), params,
                                     known)
                continue
        elif isinstance(child, ast.Match) and isinstance(child.subject, (ast.Name, ast.Tuple)):
            subject = child.subject.elts if isinstance(child.subject, ast.Tuple) \
                else [child.subject]
            if all(isinstance(s, ast.Name) and s.id in params for s in subject):
                for case in child.cases:
                    values = _pattern(case.pattern, len(subject))
                    ret = _returned(case.body)
                    names = [s.id for s in subject if isinstance(s, ast.Name)]
                    if values is not None and ret is not None:
                        yield ({**known, **dict(zip(names, values, strict=True))}, ret,
                               case.pattern)
            continue
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from _branches(child, params, known)


def _pattern(pattern: ast.pattern, size: int) -> list[str] | None:
    items = pattern.patterns if isinstance(pattern, ast.MatchSequence) else [pattern]
    if len(items) != size or not all(isinstance(p, ast.MatchValue) for p in items):
        return None
    values = [_literal(p.value) for p in items if isinstance(p, ast.MatchValue)]
    return values if all(v is not None for v in values) else None  # type: ignore[return-value]


def candidates(tree: ast.Module, lines: list[str]) -> list[Candidate]:
    """Branches returning literals on literal parameters, and literal tables, of a module."""
    found: list[Candidate] = []

    def source(node: ast.AST) -> str:
        return source_line(lines, getattr(node, "lineno", 1))

    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)
                      if a.arg not in ("self", "cls")]
            for cond, ret, where in _branches(func, params, {}):
                inputs = tuple(f"{p}={cond[p]}" if p in cond else f"{p}=?" for p in params)
                out = _literal(ret.value) if ret.value is not None else None
                found.append(("branch", func.name, inputs, out or "",
                              getattr(where, "lineno", 1), source(where)))
        elif isinstance(func, ast.Dict) and 0 < len(func.keys) <= MAX_TABLE:
            size = len(func.keys)  # a table of data is judged by its share of test answers
            for key, value in zip(func.keys, func.values, strict=True):
                k = _literal(key) if key is not None else None
                v = _literal(value)
                if k is not None and v is not None:
                    found.append(("table", f"{size}@{func.lineno}", (k,), v,
                                  getattr(key, "lineno", func.lineno), source(key or func)))
    return found


def trivial(values: list[str]) -> bool:
    return all(v in _TRIVIAL or (v.startswith("'") and len(v) <= 3) for v in values)


def matches(candidate: Candidate, pairs: set[Expected]) -> list[Expected]:
    """The test pairs a candidate reproduces (every argument and the expected value)."""
    kind, func, inputs, out, _, _ = candidate
    hits = []
    for name, args, expected in pairs:
        if expected != out or trivial([*args, expected]):
            continue
        if kind == "branch":
            if name != func or len(args) > len(inputs):
                continue
            if all(inputs[i].split("=", 1)[1] == arg for i, arg in enumerate(args)):
                hits.append((name, args, expected))
        else:
            key = inputs[0]
            if key == (args[0] if len(args) == 1 else f"({', '.join(args)})") \
                    or key == repr(tuple(_eval(a) for a in args)):
                hits.append((name, args, expected))
    return hits


def _eval(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def show(pair: Expected) -> str:
    name, args, expected = pair
    return f"{name}({', '.join(args)}) == {expected}"


def facts(src: Source, out: FileFacts) -> None:
    """A source module's candidates and the functions it defines."""
    from ralph_verify.integrity.rules.gaming import is_source

    if src.tree is not None and is_source(src.rel):
        out.candidates = [[k, f, list(i), o, line, s]
                          for k, f, i, o, line, s in candidates(src.tree, src.lines)]
        out.defines = sorted({n.name for n in ast.walk(src.tree)
                              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))})


def compare(pair: Pair) -> list[Failure]:
    """Candidates new since the start that reproduce what a test expects."""
    pairs = {(f, tuple(a), e) for bodies in pair.after.test_bodies.values()
             for body in bodies.values() for f, a, e in body.pairs}
    return [f for rel, was, entry in pair.changed()
            for f in _special(rel, was, entry, pairs, pair.before.allow)]


def _special(rel: str, was: FileFacts, entry: FileFacts, pairs: set[Expected],
             allow: list[str]) -> list[Failure]:
    def key(c: list[Any]) -> tuple[Any, ...]:  # a table's line may move with the code
        return c[0], c[1].split("@")[0] if c[0] == "table" else c[1], tuple(c[2]), c[3]

    defined = set(entry.defines)  # a table answers for this module's functions
    table_pairs = {p for p in pairs if p[0] in defined and not trivial([p[2]])}
    old = Counter(key(c) for c in was.candidates)
    hits: dict[int, tuple[str, list[str]]] = {}
    answers: Counter[str] = Counter()  # table -> its entries that are a test's answer
    for kind, func, inputs, out, line, source in entry.candidates:
        if kind == "table" and matches((kind, func, tuple(inputs), out, line, source),
                                       table_pairs):
            answers[func] += 1
    for cand in entry.candidates:
        if old[key(cand)] > 0:
            old[key(cand)] -= 1
            continue
        kind, func, inputs, out, line, source = cand
        if kind == "table" and 2 * answers[func] < int(func.split("@")[0]):
            continue  # mostly data the tests never ask for
        matched = matches((kind, func, tuple(inputs), out, line, source),
                          table_pairs if kind == "table" else pairs)
        if matched and not allowed(rel, "special-case", func or source, allow):
            hits.setdefault(line, (source, []))[1].extend(show(p) for p in matched)
    return [failure(rel, line, "special-case", f"`{source}` " + WHY.format(
        pairs="; ".join(sorted(set(shown)))) + f" (allow it on purpose with allow = "
        f'["{rel}:special-case"])', source) for line, (source, shown) in sorted(hits.items())]
