"""The ``--until`` grammar (``docs/until.md``): a pure parser from text to :class:`CheckSpec`
items. It knows no check names: the registry resolves them afterwards, using the positions
kept on each spec to point at the bad character."""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ralph_verify.errors import UsageError

OPERATORS = (">=", "<=", "==", ">", "<")
#: The spellings with no shell metacharacters, and the operator each stands for.
BOUNDS = {".min=": ">=", ".max=": "<="}
_BOUND = r"\.(?:min|max)=[0-9]"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
#: No count or percentage reaches this: a threshold above it can never pass.
MAX_THRESHOLD = 1e15
_NUMBER = r"[0-9]+(?:\.[0-9]+)?"


@dataclass(frozen=True)
class CheckSpec:
    """One item of ``--until``, as written; ``text`` is the item itself."""

    name: str
    arg: str | None = None
    op: str | None = None
    threshold: float | None = None
    percent: bool = False
    negated: bool = False
    text: str = ""
    #: Where the spec came from and where in that text it starts, for errors.
    source: str = "--until"
    source_text: str = ""
    offset: int = 0
    name_offset: int = 0
    op_offset: int = 0

    def __str__(self) -> str:
        return self.text

    def compare(self, value: float) -> bool:
        """Whether ``value`` satisfies this spec's threshold (True when there is none)."""
        return self.meets(value, True)

    def meets(self, value: float, default: bool) -> bool:
        """Whether ``value`` satisfies this spec's threshold; ``default`` when there is none."""
        if self.op is None or self.threshold is None:
            return default
        return _COMPARE[self.op](value, self.threshold)

    def relation(self, passed: bool) -> str:
        """`` >= 80%`` for a percentage that met the threshold, `` < 80%`` for one that did
        not (``""`` without a threshold)."""
        if self.op is None or self.threshold is None:
            return ""
        return f" {self.op if passed else _NEGATED[self.op]} {self.threshold:g}%"

    def threshold_text(self) -> str:
        if self.op is None or self.threshold is None:
            return ""
        number = f"{self.threshold:g}"
        return f"{self.op}{number}{'%' if self.percent else ''}"


_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq}
_NEGATED = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!="}


class SpecError(UsageError):
    """A bad ``--until`` item: the message shows the text with a caret under the bad character."""

    def __init__(self, problem: str, text: str, position: int, *, source: str = "--until",
                 hint: str = "") -> None:
        self.problem = problem
        self.text = text
        self.position = max(0, min(position, len(text)))
        self.source = source
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"bad check spec in {self.source}: {self.problem}",
                 f"  {self.text}",
                 "  " + " " * self.position + "^"]
        if self.hint:
            lines.append(self.hint)
        return "\n".join(lines)


def parse_until(text: str, *, source: str = "--until") -> list[CheckSpec]:
    """Parse a comma-separated ``--until`` value into specs."""
    specs: list[CheckSpec] = []
    for start, end in _split_items(text, source):
        specs.append(_parse_item(text, start, end, source))
    if not specs:
        raise SpecError("no checks given (example: tests,lint,coverage.min=80)", text, 0,
                        source=source)
    return specs


def parse_spec(text: str, *, source: str = "--until") -> CheckSpec:
    """Parse exactly one spec (an item of ``until = [...]`` in a config file)."""
    items = list(_split_items(text, source))
    if len(items) != 1:
        position = items[1][0] - 1 if len(items) > 1 else 0
        raise SpecError("expected exactly one check per list item (quote commas: cmd:\"a, b\")",
                        text, position, source=source)
    return _parse_item(text, items[0][0], items[0][1], source)


def _split_items(text: str, source: str) -> Iterator[tuple[int, int]]:
    """Yield (start, end) of each comma-separated item, honouring quotes. A NUL cannot be
    passed to any command (a config file's ``"\\u0000"``): refused here, where it points."""
    if "\0" in text:
        raise SpecError("a NUL character cannot be part of a check spec", text.replace("\0", " "),
                        text.index("\0"), source=source)
    start = 0
    in_quotes = False
    quote_start = 0
    index = 0
    while index < len(text):
        char = text[index]
        if in_quotes and char == "\\":
            index += 2
            continue
        if char == '"':
            in_quotes = not in_quotes
            quote_start = index
        elif char == "," and not in_quotes:
            yield start, index
            start = index + 1
        index += 1
    if in_quotes:
        raise SpecError("unterminated quote: close it with \"", text, quote_start, source=source)
    yield start, len(text)


def _parse_item(text: str, start: int, end: int, source: str) -> CheckSpec:
    def fail(problem: str, position: int, hint: str = "") -> SpecError:
        return SpecError(problem, text, position, source=source, hint=hint)

    pos = start
    while pos < end and text[pos].isspace():
        pos += 1
    stop = end
    while stop > pos and text[stop - 1].isspace():
        stop -= 1
    if pos >= stop:
        raise fail("empty check spec (remove the extra comma)", pos)
    item_start = pos
    negated = text[pos] == "!"
    if negated:
        pos += 1
    match = _NAME.match(text, pos, stop)
    if match is None:
        raise fail("expected a check name (letters, digits, '_' or '-')", pos,
                   hint="run 'ralph-verify checks' to list the known names")
    name = match.group()
    name_offset = pos
    pos = match.end()
    arg: str | None = None
    if pos < stop and text[pos] == ":":
        pos += 1
        arg, pos = _parse_arg(text, pos, stop, fail)
    op: str | None = None
    threshold: float | None = None
    percent = False
    op_offset = 0
    while pos < stop and text[pos].isspace():
        pos += 1
    if pos < stop:
        bound = next((b for b in BOUNDS if text.startswith(b, pos)), None)
        op = BOUNDS[bound] if bound else next((o for o in OPERATORS if text.startswith(o, pos)),
                                              None)
        if op is None:
            raise fail("expected ',', .min=N, .max=N or an operator (>=, >, <=, <, ==) here",
                       pos)
        op_offset = pos
        pos += len(bound or op)
        while pos < stop and text[pos].isspace():
            pos += 1
        number = re.compile(_NUMBER).match(text, pos, stop)
        if number is None:
            raise fail(f"expected a number after '{bound or op}'", pos)
        threshold = float(number.group())
        if not math.isfinite(threshold) or threshold > MAX_THRESHOLD:
            raise fail(f"threshold of {len(number.group())} characters can never be reached "
                       f"(at most {MAX_THRESHOLD:.0e})", pos)
        pos = number.end()
        if pos < stop and text[pos] == "%":
            percent = True
            pos += 1
        if pos < stop:
            raise fail("unexpected text after the threshold (separate checks with ',')", pos)
    return CheckSpec(
        name=name, arg=arg, op=op, threshold=threshold, percent=percent, negated=negated,
        text=text[item_start:stop], source=source, source_text=text, offset=item_start,
        name_offset=name_offset, op_offset=op_offset,
    )


def _parse_arg(text: str, pos: int, stop: int, fail: Callable[[str, int], SpecError]
               ) -> tuple[str, int]:
    if pos < stop and text[pos] == '"':
        chars: list[str] = []
        index = pos + 1
        while index < stop and text[index] != '"':
            if text[index] == "\\" and index + 1 < stop:
                index += 1
            chars.append(text[index])
            index += 1
        if index >= stop:
            raise fail("unterminated quote: close it with \"", pos)
        if not chars:
            raise fail("empty argument after ':'", pos)
        return "".join(chars), index + 1
    index = pos
    while index < stop and not any(text.startswith(o, index) for o in OPERATORS) \
            and not re.compile(_BOUND).match(text, index, stop):
        index += 1
    value = text[pos:index].rstrip()
    if not value:
        raise fail("empty argument after ':'", pos)
    return value, pos + len(value)


#: A file the shell made from an unquoted ``>=80`` or ``>80`` (with what followed, if any).
_REDIRECT_NAME = r"(=?)([0-9]+(?:\.[0-9]+)?%?)(?:,.*)?"
_JUST_NOW = 120.0


def redirect_trap(specs: list[CheckSpec], takes_threshold: Callable[[str], bool]) -> str | None:
    """A message when ``--until a,coverage>=80`` lost its threshold to the shell (bash wrote our
    stdout to a new file ``=80``), else None: the last spec is a bare name that takes a threshold
    and stdout is a regular file just made here whose name looks like the rest of one."""
    import os
    import stat
    import time

    if not specs:
        return None
    last = specs[-1]
    if last.op is not None or last.arg is not None or not takes_threshold(last.name):
        return None
    try:
        out = os.fstat(1)
        if not stat.S_ISREG(out.st_mode) or time.time() - out.st_ctime > _JUST_NOW:
            return None
        with os.scandir(".") as entries:
            for entry in entries:
                match = re.compile(_REDIRECT_NAME).fullmatch(entry.name)
                if match is None or not entry.is_file(follow_symlinks=False):
                    continue
                found = entry.stat(follow_symlinks=False)
                if (found.st_dev, found.st_ino) == (out.st_dev, out.st_ino):
                    return _trap_message(last, entry.name, match)
    except OSError:
        return None
    return None


def _trap_message(last: CheckSpec, file_name: str, match: re.Match[str]) -> str:
    equals, number = match.group(1), match.group(2)
    written = f"{last.name}>{file_name}"
    quoted = f"--until '{last.source_text.rstrip()[:-len(last.text)]}{written}'"
    safer = f" or write {last.name}.min={number}" if equals else ""
    return (f"the shell took '>{file_name}' as a redirection: '{written}' was not quoted, so "
            f"stdout went to a new file {file_name!r} and '{last.name}' lost its threshold. "
            f"Quote the spec ({quoted}){safer}, then delete the file {file_name!r}")
