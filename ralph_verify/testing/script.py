"""The script of the scripted model server: its steps (a :class:`Reply`, a :class:`Fail`, or a
function of the request returning one), the recorded requests, and functions that write the tool
calls each agent CLI understands."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

_CWD_PATTERNS = (re.compile(r"Primary working directory: ?([^\n\\\"]+)"),
                 re.compile(r"<cwd>([^<]+)</cwd>"),
                 re.compile(r"Workspace Directories:\*\*\n\s*- ([^\n]+)"),
                 re.compile(r"I'm currently working in the directory: ([^\n]+)"),
                 re.compile(r"(?:Current w|\bW)orking directory: ([^\n]+)"))


@dataclass(frozen=True)
class ToolCall:
    """One tool call: Anthropic ``tool_use``, Responses ``function_call``, chat ``tool_calls``."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """One model turn: optional text, then tool calls (none: the turn ends)."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()

    def substitute(self, cwd: str | None) -> Reply:
        """``{cwd}`` replaced everywhere (left as is when the cwd is unknown)."""
        if cwd is None:
            return self
        return Reply(_replace(self.text, cwd),
                     tuple(ToolCall(call.name, _replace(call.arguments, cwd))
                           for call in self.tool_calls))


def _replace(value: Any, cwd: str) -> Any:
    if isinstance(value, str):
        return value.replace("{cwd}", cwd)
    if isinstance(value, dict):
        return {key: _replace(item, cwd) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace(item, cwd) for item in value]
    return value


@dataclass(frozen=True)
class Fail:
    """An API error instead of a reply, in the API's shape (the CLIs retry 429 and 5xx,
    not 400)."""

    status: int = 400
    message: str = "scripted failure"
    #: Extra response headers, e.g. ``(("retry-after", "2"),)`` on a 429.
    headers: tuple[tuple[str, str], ...] = ()


#: A step of the script: a fixed reply or failure, or a function of the request returning one.
Step = Reply | Fail | Callable[["RecordedRequest"], "Reply | Fail"]


def text(content: str) -> Reply:
    """A plain text reply: the model ends its turn."""
    return Reply(text=content)


def tool(name: str, /, **arguments: Any) -> Reply:
    """A reply that calls one tool with ``arguments``."""
    return Reply(tool_calls=(ToolCall(name, arguments),))


def claude_write(path: str, content: str) -> Reply:
    """Claude Code's ``Write`` tool; a relative ``path`` is made absolute under ``{cwd}``."""
    return tool("Write", file_path=path if path.startswith(("/", "{cwd}")) else f"{{cwd}}/{path}",
                content=content)


def claude_edit(path: str, old: str, new: str) -> Reply:
    """Claude Code's ``Edit`` tool (``old`` must occur once in the file, after a ``Read``)."""
    return tool("Edit", file_path=path if path.startswith(("/", "{cwd}")) else f"{{cwd}}/{path}",
                old_string=old, new_string=new)


def claude_read(path: str) -> Reply:
    """Claude Code's ``Read`` tool."""
    return tool("Read", file_path=path if path.startswith(("/", "{cwd}")) else f"{{cwd}}/{path}")


def claude_bash(command: str, description: str = "run a command") -> Reply:
    """Claude Code's ``Bash`` tool."""
    return tool("Bash", command=command, description=description)


def codex_exec(cmd: str) -> Reply:
    """Codex's shell tool, ``exec_command``."""
    return tool("exec_command", cmd=cmd)


def aider_whole(path: str, content: str, note: str = "") -> Reply:
    """aider's ``whole`` edit format: a path line, then the whole file in a fenced block."""
    body = content if content.endswith("\n") else content + "\n"
    return text(f"{note}\n\n{path}\n```\n{body}```\n".lstrip("\n"))


@dataclass
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    raw: bytes
    #: The body parsed as JSON (None when it is not JSON).
    body: Any
    #: ``anthropic``, ``responses``, ``chat``, or None (not a model request).
    api: str | None = None
    #: The script step this request consumed (0-based), None if it consumed none.
    step: int | None = None
    error: str | None = None

    @property
    def text(self) -> str:
        """The whole body as text (JSON strings unescaped), for ``in`` assertions."""
        if self.body is None:
            return self.raw.decode("utf-8", errors="replace")
        return "\n".join(_strings(self.body))

    @property
    def cwd(self) -> str | None:
        """The agent's working directory, when the request names it."""
        for pattern in _CWD_PATTERNS:
            match = pattern.search(self.text)
            if match:
                return match.group(1).strip()
        return None

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    def last_user_text(self) -> str:
        """The text of the last user message (Anthropic/chat ``messages``, Responses ``input``)."""
        if not isinstance(self.body, dict):
            return ""
        items = (self.body.get("messages") or self.body.get("input")
                 or self.body.get("contents") or [])
        if isinstance(items, str):
            return items
        for item in reversed(items):
            if isinstance(item, dict) and item.get("role") == "user":
                return "\n".join(_texts(item.get("content", item.get("parts", ""))))
        return ""


def _texts(content: Any) -> Iterator[str]:
    """The text of a message's content: a string, or blocks with ``text``/``content``."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                yield block
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    yield block["text"]
                elif "content" in block:
                    yield from _texts(block["content"])
                elif isinstance(block.get("output"), str):
                    yield block["output"]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
