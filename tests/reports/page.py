"""Reading a report page back: its elements with their attributes, and the numbers it shows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class Page(HTMLParser):
    """Every element of the page; ``text`` is the text directly inside (not nested tags)."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[Element] = []
        self._open: list[Element] = []

    _VOID = frozenset({"meta", "br", "link", "img", "input", "line", "path", "rect", "hr"})

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {key: value or "" for key, value in attrs})
        self.elements.append(element)
        if tag not in self._VOID:
            self._open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, {key: value or "" for key, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index].tag == tag:
                del self._open[index:]
                break

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1].text += data

    def find(self, tag: str | None = None, cls: str | None = None,
             **attrs: str) -> list[Element]:
        return [e for e in self.elements
                if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)
                and all(e.attrs.get(key.replace("_", "-")) == value
                        for key, value in attrs.items())]


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


def history(ralph_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            (ralph_dir / "history.jsonl").read_text(encoding="utf-8").splitlines()]


def charted(check: dict[str, Any]) -> str:
    """The number the report promises per check (see ralph_verify.reports.chart): coverage
    in percent; failing tests; lint/type errors; else the failures listed."""
    if check["status"] == "error":
        return "error"
    if check["name"] == "coverage":  # not judged (a partial run): no number
        return "none" if check["metric"] is None else f"{float(check['metric']):g}"
    counts = check.get("counts") or {}
    if "failed" in counts:
        return f"{float(counts['failed'] + counts.get('errors', 0)):g}"
    if "errors" in counts:
        return f"{float(counts['errors']):g}"
    return f"{float(check['failures']):g}"
