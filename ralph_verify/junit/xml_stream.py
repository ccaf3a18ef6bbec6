"""Parse XML as data: each element's text bounded (ElementTree joins a whole text first, and
one failure may carry 200 MB of output), and any DTD refused before an entity is expanded."""

from __future__ import annotations

import xml.etree.ElementTree as ET
import xml.parsers.expat as expat
from collections.abc import Iterator
from typing import BinaryIO

_CHUNK = 64 * 1024
#: The root elements of JUnit XML.
SUITE_TAGS = ("testsuite", "testsuites")


class DTDRefused(ValueError):
    """The file declares a DTD, or is another kind of document."""


def _refuse(*_: object) -> None:
    raise DTDRefused("refused: the file declares a DTD (<!DOCTYPE> or <!ENTITY>), which JUnit "
                     "XML never needs and which could expand entities or read other files; the "
                     "file was not read (write it without a DOCTYPE)")


def _doctype(name: str, *_: object) -> None:
    if name not in SUITE_TAGS:  # <!DOCTYPE html>: say what it is, still unread
        raise DTDRefused(f"not JUnit XML (the root element is <{name}>, expected <testsuites> "
                         "or <testsuite>)")
    _refuse()


class _Builder:
    """Builds elements as ``TreeBuilder`` does, from expat's events, with every text and tail
    cut to ``keep`` characters (a quarter head, the rest tail, a note of what was cut)."""

    def __init__(self, keep: int) -> None:
        self.events: list[tuple[str, ET.Element]] = []
        self.head_room, self.tail_room = keep // 4, keep - keep // 4
        self.stack: list[ET.Element] = []
        self.last: ET.Element | None = None  # data after an element's end is its tail
        self.head, self.tail, self.cut = "", "", 0

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        self.flush()
        elem = ET.Element(tag, attrs)
        if self.stack:
            self.stack[-1].append(elem)
        self.stack.append(elem)
        self.last = None
        self.events.append(("start", elem))

    def data(self, text: str) -> None:  # in pieces of up to _CHUNK (expat's buffer_text)
        room = max(self.head_room - len(self.head), 0)
        self.head += text[:room]
        tail = self.tail + text[room:]
        self.cut += max(len(tail) - self.tail_room, 0)
        self.tail = tail[-self.tail_room:]

    def end(self, tag: str) -> None:
        self.flush()
        self.last = self.stack.pop()
        self.events.append(("end", self.last))

    def flush(self) -> None:
        if not self.head and not self.tail:
            return
        note = f"\n[... {self.cut} characters cut ...]\n" if self.cut else ""
        text = self.head + note + self.tail
        if self.last is not None:
            self.last.tail = text
        elif self.stack:
            self.stack[-1].text = text
        self.head, self.tail, self.cut = "", "", 0


def iterparse_bounded(source: BinaryIO, keep: int) -> Iterator[tuple[str, ET.Element]]:
    """``("start" | "end", element)`` pairs of ``source``, each text at most ``keep``
    characters (plus a note); raises :class:`DTDRefused` or :class:`expat.ExpatError`."""
    builder = _Builder(keep)
    parser = expat.ParserCreate()
    parser.buffer_text, parser.buffer_size = True, _CHUNK
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = _doctype
    parser.EntityDeclHandler = parser.UnparsedEntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse  # type: ignore[assignment]  # it raises
    while chunk := source.read(_CHUNK):
        parser.Parse(chunk, False)
        events, builder.events = builder.events, []
        yield from events
    parser.Parse(b"", True)
    builder.flush()
    yield from builder.events
