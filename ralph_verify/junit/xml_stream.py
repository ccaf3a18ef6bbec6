"""``iterparse`` that keeps a bounded amount of each element's text (head and tail, with a
note of what was cut): ElementTree joins a whole text first, and one failure may carry
200 MB of output."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Iterator
from typing import BinaryIO

_CHUNK = 64 * 1024


class _BoundedBuilder:
    """An ``XMLParser`` target that builds elements as ``TreeBuilder`` does, with
    every text and tail cut to ``keep`` characters (a quarter head, the rest tail)."""

    def __init__(self, keep: int) -> None:
        self.events: list[tuple[str, ET.Element]] = []
        self._head_room = keep // 4
        self._tail_room = keep - keep // 4
        self._stack: list[ET.Element] = []
        self._last: ET.Element | None = None  # data after an element's end is its tail
        self._reset()

    def _reset(self) -> None:
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self._cut = 0

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        self._flush()
        elem = ET.Element(tag, attrs)
        if self._stack:
            self._stack[-1].append(elem)
        self._stack.append(elem)
        self._last = None
        self.events.append(("start", elem))

    def data(self, text: str) -> None:
        room = self._head_room - self._head_len
        if room > 0:
            piece = text[:room]
            self._head.append(piece)
            self._head_len += len(piece)
            text = text[len(piece):]
        if text:
            self._tail.append(text)
            self._tail_len += len(text)
            while len(self._tail) > 1 and self._tail_len - len(self._tail[0]) >= self._tail_room:
                dropped = self._tail.popleft()
                self._tail_len -= len(dropped)
                self._cut += len(dropped)

    def end(self, tag: str) -> ET.Element:
        self._flush()
        elem = self._stack.pop()
        self._last = elem
        self.events.append(("end", elem))
        return elem

    def close(self) -> None:
        self._flush()

    def _flush(self) -> None:
        if not self._head_len and not self._tail_len:
            return
        tail = "".join(self._tail)
        if len(tail) > self._tail_room:
            self._cut += len(tail) - self._tail_room
            tail = tail[-self._tail_room:]
        note = f"\n[... {self._cut} characters cut ...]\n" if self._cut else ""
        text = "".join(self._head) + note + tail
        if self._last is not None:
            self._last.tail = text
        elif self._stack:
            self._stack[-1].text = text
        self._reset()


def iterparse_bounded(source: BinaryIO, keep: int) -> Iterator[tuple[str, ET.Element]]:
    """``("start" | "end", element)`` pairs of ``source``, each text at most ``keep``
    characters (plus a note); raises :class:`xml.etree.ElementTree.ParseError`."""
    builder = _BoundedBuilder(keep)
    parser = ET.XMLParser(target=builder)
    while chunk := source.read(_CHUNK):
        parser.feed(chunk)
        events, builder.events = builder.events, []
        yield from events
    parser.close()
    yield from builder.events
