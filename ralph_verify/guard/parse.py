"""Parse a shell line with tree-sitter-bash into the simple commands it would run, words as bash
would see them; what the grammar cannot read raises :class:`Unreadable`."""

from __future__ import annotations

import re
import time
from functools import lru_cache
from typing import Any

from ralph_verify.guard.command import (
    GLOB,
    MAX_BYTES,
    MAX_DEPTH,
    Parsed,
    SimpleCommand,
    Unreadable,
    command_name,
)
from ralph_verify.guard.words import UNKNOWN_SUBST, ansi_c, brace_expand, static_output, unescape

_QUOTED_BRACES = str.maketrans({"{": "\ue000", "}": "\ue001", ",": "\ue002"})
_UNQUOTED_BRACES = str.maketrans({"\ue000": "{", "\ue001": "}", "\ue002": ","})


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse(line: str, environ: dict[str, str], deadline: float, depth: int = 0) -> Parsed:
    """Every simple command of ``line``; ``environ``: the variables known before it runs."""
    if len(line.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise Unreadable(f"the command is {len(line)} characters long, over the guard's "
                         f"limit of {MAX_BYTES}; write long content with the Write tool")
    if depth > MAX_DEPTH:
        raise Unreadable(f"scripts nested more than {MAX_DEPTH} deep (sh -c, eval)")
    tree = _parser().parse(line.encode("utf-8", "surrogatepass"))
    if tree.root_node.has_error:
        raise Unreadable(f"bash cannot parse it ({error_hint(tree.root_node)})")
    walker = _Walker(environ, deadline)
    walker.statement(tree.root_node)
    return Parsed(walker.commands, walker.recursive, walker.assigned, walker.endless_forks)


class _Walker:
    """Turns a tree-sitter tree into :class:`SimpleCommand` s, expanding words."""

    def __init__(self, environ: dict[str, str], deadline: float) -> None:
        self.vars = dict(environ)
        self.deadline = deadline
        self.commands: list[SimpleCommand] = []
        self.recursive: list[str] = []
        self.functions: dict[str, Any] = {}
        self.moved = self.ifs = self.quoted_glob = False
        self.assigned: list[tuple[str, str]] = []
        self.fed: list[SimpleCommand] = []
        self.reading: list[SimpleCommand] = []
        self.endless_forks = 0

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise Unreadable("the guard ran out of time deciding it")

    def statement(self, node: Any, inherited: list[tuple[str, str]] | None = None) -> list[
            SimpleCommand]:
        """The commands of ``node``, appended to :attr:`commands` and returned."""
        self.tick()
        kind = node.type
        start = len(self.commands)
        if kind == "command":
            self.command(node, inherited or [])
        elif kind == "pipeline":
            self.pipeline([c for c in node.named_children], inherited)
        elif kind == "redirected_statement":
            self.redirected(node, inherited)
        elif kind == "variable_assignment":
            self.assign(node)
        elif kind == "declaration_command":
            words = [node.children[0].type]
            for child in node.named_children:
                if child.type == "variable_assignment":
                    self.assign(child)
                words.extend(self.word(child))
            self.commands.append(SimpleCommand(words, list(inherited or [])))
        elif kind == "unset_command":
            for child in node.named_children:
                self.vars.pop(child.text.decode(), None)
        elif kind == "function_definition":
            self.define_function(node)
        elif kind in ("test_command", "comment", "heredoc_body"):
            for sub in substitutions(node):
                self.substituted(sub, "test")
        else:
            if kind in ("while_statement", "until_statement", "c_style_for_statement") and \
                    endless(node) and backgrounds(node.child_by_field_name("body")):
                self.endless_forks += 1
            if kind == "for_statement" and backgrounds(node.child_by_field_name("body")) and \
                    sum(len(self.word(v)) for v in node.children_by_field_name("value")
                        if v.type == "brace_expression") >= 256:
                self.endless_forks += 1  # ``for i in {1..100000}; do x & done``
            if kind == "for_statement":
                value = node.child_by_field_name("value")
                if value is not None:
                    for sub in substitutions(value):
                        self.substituted(sub, "for")
            for child in node.named_children:
                if child.type not in ("variable_name", "word", "string", "raw_string",
                                      "concatenation", "simple_expansion", "expansion"):
                    self.statement(child, inherited)
                elif kind not in ("for_statement", "case_item"):
                    for sub in substitutions(child):
                        self.substituted(sub, kind)
        return self.commands[start:]

    def pipeline(self, stages: list[Any], inherited: list[tuple[str, str]] | None,
                 upstream: list[SimpleCommand] | None = None, tail: Any = None) -> None:
        """``tail``: a redirected_statement whose redirects belong to the last stage; the
        others write to the pipe, not to a group's ``{ a | b; } > f``."""
        before = list(upstream or [])
        piped = [r for r in inherited or [] if r[0] not in (">", ">>", ">|")]
        for i, stage in enumerate(stages):
            start = len(self.commands)
            if i < len(stages) - 1:
                self.statement(stage, piped)
            elif tail is not None:
                self.redirected(tail, inherited, stage)
            else:
                self.statement(stage, inherited)
            found = self.commands[start:]
            if before:
                for command in found:
                    command.after = "|"
                    command.upstream = before + command.upstream
            before = before + found

    def redirected(self, node: Any, inherited: list[tuple[str, str]] | None,
                   body: Any = None) -> None:
        body = node.child_by_field_name("body") if body is None else body
        if body is not None and body.type in ("pipeline", "list"):
            # The grammar hangs ``a | b > f``'s and ``a && b > f``'s redirects on the whole;
            # bash gives them to the last command, ``b``.
            if body.type == "pipeline":
                self.pipeline(body.named_children, inherited, tail=node)
            else:
                for child in body.named_children[:-1]:
                    self.statement(child, inherited)
                self.redirected(node, inherited, body.named_children[-1])
            return
        redirects = list(inherited or [])
        stdin_text: str | None = None
        continuation: list[Any] = []
        fed: list[SimpleCommand] = []
        reading: list[SimpleCommand] = []
        for child in node.children_by_field_name("redirect"):
            if child.type == "file_redirect":
                redirects.append(self.redirect(child))
                fed.extend(self.fed)
                reading.extend(self.reading)
                self.fed, self.reading = [], []
            elif child.type in ("heredoc_redirect", "herestring_redirect"):
                text, more, nested = self.heredoc(child)
                stdin_text = text
                redirects.extend(nested)
                continuation.extend(more)
        if body is None:  # ``> /etc/passwd``: a redirection alone still writes
            self.commands.append(SimpleCommand([], redirects))
        found = self.statement(body, redirects) if body is not None else []
        for command in found:
            if stdin_text is not None and command.stdin_text is None:
                command.stdin_text = stdin_text
            command.feeds.extend(fed)
        for reader in reading:
            reader.upstream = [*found, *reader.upstream]
        for more in continuation:
            if more.type == "pipeline":
                self.pipeline(list(more.named_children), None, upstream=found)
            else:
                self.statement(more)

    def heredoc(self, node: Any) -> tuple[str, list[Any], list[tuple[str, str]]]:
        text, more, nested = "", [], []
        for child in node.named_children:
            if child.type == "heredoc_body":
                text = child.text.decode("utf-8", "replace")
                for sub in substitutions(child):
                    self.substituted(sub, "<<")
            elif child.type == "file_redirect":
                nested.append(self.redirect(child))
            elif child.type not in ("heredoc_start", "heredoc_end"):
                if node.type == "herestring_redirect":
                    text = " ".join(self.word(child))
                else:
                    more.append(child)
        return text, more, nested

    def redirect(self, node: Any) -> tuple[str, str]:
        """``(op, target)``; a process substitution as the target is noted in :attr:`fed`
        (``< <(echo x)``: it feeds stdin) or :attr:`reading` (``> >(sh)``: it reads)."""
        op = next((c.type for c in node.children if not c.is_named), ">")
        target = node.child_by_field_name("destination")
        start = len(self.commands)
        words = self.word(target) if target is not None else [""]
        if target is not None and target.type == "process_substitution":
            inner = self.commands[start:]
            if op in ("<", "<&", "<>"):
                self.fed.extend(inner)
            else:
                self.reading.extend(inner)
        return op, words[0] if words else ""

    def assign(self, node: Any) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        start = len(self.commands)
        words = self.word(value) if value is not None else [""]
        for command in self.commands[start:]:
            if command.substituted_into == "\0":
                command.substituted_into = "="
        if name is not None and name.type == "variable_name":
            self.vars[name.text.decode()] = " ".join(words)
            self.assigned.append((name.text.decode(), " ".join(words)))
            if name.text.decode() == "IFS":  # word splitting changed: values are unknown
                self.vars = {k: v for k, v in self.vars.items() if k in ("HOME", "PWD")}
                self.ifs = True

    def define_function(self, node: Any) -> None:
        name_node = node.child_by_field_name("name")
        name = name_node.text.decode() if name_node is not None else ""
        body = node.child_by_field_name("body")
        if body is None:
            return
        self.functions[name] = body
        found = self.statement(body)
        if any(c.name == name for c in found):
            self.recursive.append(name)

    def command(self, node: Any, redirects: list[tuple[str, str]]) -> None:
        start = len(self.commands)
        words: list[str] = []
        own = list(redirects)
        feeds: list[SimpleCommand] = []
        patterns: set[str] = set()
        stdin_text = None
        redirect_ids = {child.id for child in node.children_by_field_name("redirect")}
        for child in node.named_children:
            if child.type == "variable_assignment":  # a prefix ``X=1 cmd``: cmd's environment
                name, value = child.child_by_field_name("name"), child.child_by_field_name(
                    "value")
                if name is not None:
                    self.assigned.append((name.text.decode(), " ".join(
                        self.word(value)) if value is not None else ""))
                continue
            if child.type == "herestring_redirect":
                stdin_text, _, _ = self.heredoc(child)
            elif child.id in redirect_ids or child.type == "file_redirect":
                own.append(self.redirect(child))
                feeds.extend(self.fed)
                self.fed = []
            elif child.type == "process_substitution":
                inner = self.nested(child, "<(")
                feeds.extend(inner)
                words.append("/dev/fd/63")
            else:
                expanded = self.word(child)
                words.extend(expanded)
                if self.quoted_glob:
                    patterns.update(expanded)
        self.commands.append(SimpleCommand(words, own, stdin_text=stdin_text, feeds=feeds,
                                           patterns=patterns))
        for reader in self.reading:  # ``cmd > >(bash)``: bash reads what cmd prints
            reader.upstream = [self.commands[start], *reader.upstream]
        self.reading = []
        name = command_name(words[0]) if words else ""
        if name in ("cd", "pushd", "popd"):
            self.moved = True  # ``$(pwd)`` and ``$PWD`` are no longer the call's cwd
            self.vars.pop("PWD", None)
        for command in self.commands[start:]:
            if command.substituted_into == "\0":
                command.substituted_into = name or UNKNOWN_SUBST

    def nested(self, node: Any, after: str) -> list[SimpleCommand]:
        start = len(self.commands)
        for child in node.named_children:
            self.statement(child)
        inner = self.commands[start:]
        for command in inner:
            command.after = command.after or after
        return inner

    def substituted(self, node: Any, into: str) -> list[SimpleCommand]:
        children = node.named_children
        if children and all(c.type == "file_redirect" for c in children):
            # ``$(<FILE)``: bash reads FILE itself, as ``cat FILE`` would
            self.commands.append(SimpleCommand(["cat"], [self.redirect(c) for c in children],
                                               substituted_into=into))
            return self.commands[-1:]
        inner = self.nested(node, "")
        for command in inner:
            command.substituted_into = command.substituted_into or into
        return inner

    def word(self, node: Any) -> list[str]:
        """The words one argument node expands to (brace expansion, known variables)."""
        self.tick()
        if node.type == "brace_expression":  # ``{1..5}``
            return brace_expand(node.text.decode())
        pieces: list[tuple[str, bool]] = []
        self.pieces(node, pieces, quoted=False)
        text = "".join(p if not q else p.translate(_QUOTED_BRACES) for p, q in pieces)
        split = not any(q for _, q in pieces) and (node.type in ("simple_expansion",
                                                                 "expansion") or (
            node.type == "command_name" and len(node.named_children) == 1 and
            node.named_children[0].type in ("simple_expansion", "expansion")))
        # ``'*.json'``: the program gets the pattern itself, no file names
        self.quoted_glob = any(q and GLOB.search(p) for p, q in pieces) and not any(
            not q and GLOB.search(p) for p, q in pieces)
        out = []
        for expanded in brace_expand(text):
            restored = expanded.translate(_UNQUOTED_BRACES)
            out.extend(restored.split() if split else [restored])
        return out

    def pieces(self, node: Any, out: list[tuple[str, bool]], quoted: bool) -> None:
        kind = node.type
        raw = node.text.decode("utf-8", "replace") if node.text is not None else ""
        if kind in ("word", "command_name", "number", "file_descriptor", "variable_name",
                    "test_operator", "regex", "extglob_pattern", "special_variable_name"):
            if kind == "command_name":
                for child in node.named_children:
                    self.pieces(child, out, quoted)
                return
            out.append((unescape(raw), quoted))
        elif kind == "raw_string":
            out.append((raw[1:-1], True))
        elif kind == "ansi_c_string":
            out.append((ansi_c(raw[2:-1]), True))
        elif kind == "string_content":
            out.append((re.sub(r"\\([$`\"\\\n])", r"\1", raw), True))
        elif kind == "string":
            # Text between the children (a newline, for one) is part of the string too.
            data, base = node.text or b"", node.start_byte
            position = base + 1
            out.append(("", True))
            for child in [*node.named_children, None]:  # None: up to the closing quote
                end = child.start_byte if child is not None else base + len(data) - 1
                if end > position:
                    gap = data[position - base:end - base].decode("utf-8", "replace")
                    out.append((re.sub(r"\\([$`\"\\\n])", r"\1", gap), True))
                if child is not None:
                    self.pieces(child, out, True)
                    position = child.end_byte
        elif kind in ("translated_string", "concatenation"):
            for child in node.named_children:
                self.pieces(child, out, quoted or kind != "concatenation")
        elif kind in ("simple_expansion", "expansion"):
            out.append((self.expansion(node, raw), quoted))
        elif kind == "command_substitution":
            inner = self.substituted(node, "\0")
            pwd = len(inner) == 1 and inner[0].words == ["pwd"] and not self.moved and \
                self.vars.get("PWD")
            out.append((pwd or static_output(inner), quoted))
        elif kind == "process_substitution":
            self.nested(node, "<(")
            out.append(("/dev/fd/63", quoted))
        elif kind == "arithmetic_expansion":
            out.append(("0", quoted))
        else:
            out.append((raw, quoted))

    def expansion(self, node: Any, raw: str) -> str:
        """A known variable's value; the text as written (unknown) otherwise."""
        names = [c for c in node.named_children if c.type in ("variable_name",
                                                              "special_variable_name")]
        if not names or raw.startswith("${#") or raw.startswith("${!"):
            return raw
        name = names[0].text.decode()
        value = None if self.ifs and name not in ("HOME", "PWD") else self.vars.get(name)
        operator = raw[2 + len(name):-1] if raw.startswith("${") else ""
        if value is not None and (not operator or operator.startswith((":-", "-", ":=", "="))):
            return value
        return raw


# --- questions asked of tree-sitter's nodes ------------------------------------------------


def error_hint(root: Any) -> str:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            text = node.text.decode("utf-8", "replace")[:40] if node.text else ""
            return f"near {text!r}" if text.strip() else "an unfinished quote or bracket"
        stack.extend(reversed(node.children))
    return "a syntax error"


def substitutions(node: Any) -> list[Any]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.type in ("command_substitution", "process_substitution"):
            found.append(current)
            continue
        stack.extend(current.named_children)
    return found


def endless(loop: Any) -> bool:
    """A loop whose condition never ends it: ``while true``, ``until false``, ``for ((;;))``."""
    if loop.type == "c_style_for_statement":
        return loop.child_by_field_name("condition") is None
    condition = loop.child_by_field_name("condition")
    text = (condition.text or b"").decode("utf-8", "replace").strip().rstrip(";").strip() \
        if condition is not None else ""
    until = (loop.text or b"").startswith(b"until")
    forever = ("false",) if until else ("true", ":", "[ 1 ]", "((1))")
    return text in forever


def backgrounds(body: Any) -> bool:
    """Whether ``body`` starts a command in the background (an unnamed ``&`` token)."""
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if not node.is_named and node.type == "&":
            return True
        stack.extend(node.children)
    return False
