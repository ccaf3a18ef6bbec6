"""Questions the guard's parser asks of tree-sitter's nodes: where the grammar failed, the
command substitutions under a node, loops that never end and start background jobs."""

from __future__ import annotations

from typing import Any


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
