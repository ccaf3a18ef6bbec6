"""Task lists of other tools (snarktank's ``prd.json``, a Markdown checklist, and those of
``formats.py``) read as a task file's table for the one validation. A task's checks are
written ``until: SPECS``; what the other tool calls done is a claim its checks decide."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ralph_verify.errors import ConfigError
from ralph_verify.tasks.formats import (
    by_priority,
    criteria,
    from_ralph_tasks,
    from_speckit,
    from_taskmaster,
    json_kind,
    looks_like_speckit,
    slug,
)
from ralph_verify.tasks.model import TaskList, from_data, read_toml

KNOWN = ("a tasks.toml, a prd.json, a ralph-tasks.json, a Taskmaster tasks.json, a spec-kit "
         "tasks.md or a Markdown checklist (.md)")

_ITEM = re.compile(r"^(?P<indent>\s*)[-*]\s+\[(?P<mark>[ xX])\]\s+(?P<text>.+?)\s*$")
_SUB = re.compile(r"^(?P<indent>\s+)[-*]\s+(?P<text>.+?)\s*$")
_HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*$")
_LATER = re.compile(r"\b(optional|future|later|nice to have)\b", re.I)
#: A section of what was done before the list (frankbria's template ends with one).
_HISTORY = re.compile(r"^\W*(?:completed?|done|finished|changelog|history)"
                      r"(?: (?:tasks|items|work))?\W*$", re.I)
#: An item about the other items ("All tasks above marked [x]"): ralph-verify's verdict.
_META = re.compile(r"^\W*all\b.*\b(?:tasks|items|stories|todos?|boxes)\b.*(?:\babove\b|\[x\]"
                   r"|\b(?:in|of) (?:this|the) (?:file|list|plan)\b|fix_plan)", re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
Say = Callable[[str], None]


def load_any(path: Path, *, resolve: Any = None, say: Say | None = None) -> TaskList:
    """A ``tasks.toml``, a ``prd.json`` or a Markdown checklist, by name or content; ``say``
    hears what an import left out of the file, and why."""
    data, raw = read_toml(path) if path.suffix.lower() == ".toml" else translate(path, say)
    return from_data(data, path, raw=raw, resolve=resolve)


def translate(path: Path, say: Say | None = None) -> tuple[dict[str, Any], bytes]:
    """A ``prd.json`` or a Markdown checklist as the table of a task file, and its bytes."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"task file {path}: cannot be read "
                          f"({getattr(exc, 'strerror', None) or exc})") from None
    notes: list[str] = []
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"{path}: not valid JSON: {exc}") from None
        data = _from_json(path, document)
    elif path.suffix.lower() in (".md", ".markdown", ".txt"):
        data = (from_speckit if looks_like_speckit(text) else from_checklist)(text, notes)
    else:
        raise ConfigError(f"{path}: unknown task file format; give {KNOWN}")
    for note in notes:
        if say is not None:
            say(f"{path.name}: {note}")
    return data, raw


def _from_json(path: Path, document: Any) -> dict[str, Any]:
    kind = json_kind(path, document)
    if kind == "prd.json":
        return from_prd(document)
    if kind == "ralph-tasks.json":
        return from_ralph_tasks(document, _shared_prompt(path, document.get("promptFile")))
    if kind == "tasks.json":
        return from_taskmaster(document)
    raise ConfigError(f"{path}: not a task list this reads (no userStories, no tasks list); "
                      f"give {KNOWN}")


def _shared_prompt(path: Path, name: Any) -> str:
    """The text of a ralph-tasks.json's ``promptFile`` (``~`` or relative to the file)."""
    if not isinstance(name, str) or not name.strip():
        return ""
    where = path.resolve().parent / Path(name.strip()).expanduser()
    try:
        return where.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: promptFile {name!r} cannot be read ({where}: "
                          f"{getattr(exc, 'strerror', None) or exc}); every task's prompt "
                          "holds it: put the file there, or fix or remove promptFile") from None


def to_toml(data: dict[str, Any]) -> str:
    """The table of a task file as ``tasks.toml`` text (prompts as multi-line strings)."""
    import tomli_w

    return tomli_w.dumps(data, multiline_strings=True)


def from_prd(document: dict[str, Any]) -> dict[str, Any]:
    """snarktank/ralph's ``prd.json``: user stories in priority order, ``dependsOn`` kept,
    acceptance criteria in the prompt (``until:`` ones and unambiguous ones as checks)."""
    tasks = []
    for number, story in enumerate(by_priority(document["userStories"]), 1):
        table: dict[str, Any] = {"id": slug(str(story.get("id") or ""), number),
                                 "title": str(story.get("title") or "")}
        prose = criteria(table, [str(c) for c in story.get("acceptanceCriteria") or []])
        prompt = str(story.get("description") or "")
        if prose:
            prompt += "\n\nAcceptance criteria:\n" + "\n".join(f"- {c}" for c in prose)
        table["prompt"] = prompt
        if story.get("status") == "skip":  # written by 'tasks export' for a skipped task
            table["status"] = "skip"
        if isinstance(story.get("dependsOn"), list):
            table["depends-on"] = [str(dep) for dep in story["dependsOn"]]
        tasks.append(table)
    return {"task": tasks}


def from_checklist(text: str, notes: list[str] | None = None,
                   at: dict[int, str] | None = None) -> dict[str, Any]:
    """A Markdown checklist: one task per top-level ``- [ ]`` item ("Optional" ones skipped);
    a "Completed" section and an item about the others are no tasks (said in ``notes``);
    ``at`` gets each task's line number (for ``tasks export``)."""
    tasks: list[dict[str, Any]] = []
    section, later, history = "", False, False
    left: dict[str, list[str]] = {}
    body: list[str] = []
    taking = False

    def close() -> None:
        if tasks and taking:
            prose = criteria(tasks[-1], body)
            if prose:
                tasks[-1]["prompt"] += "\n" + "\n".join(line.strip() for line in prose)
        body.clear()

    text = _COMMENT.sub(lambda m: "\n" * m[0].count("\n"), text)  # line numbers kept
    for number, line in enumerate(text.splitlines()):
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if heading:
            close()
            taking, section = False, heading["title"]
            later = bool(_LATER.search(section))
            history = bool(_HISTORY.match(section))
        elif item and not item["indent"]:
            close()
            title, _, inline = item["text"].partition(" until: ")
            taking = not history and not _META.match(title)
            if not taking:
                why = (f"under '{section}': done before this list" if history else
                       "speaks of the other items: ralph-verify decides when they are done")
                left.setdefault(why, []).append(f"line {number + 1} '{title.strip()}'")
                continue
            tasks.append({"id": f"T{len(tasks) + 1}", "title": title.strip(),
                          "prompt": title.strip()})
            if at is not None:
                at[number] = tasks[-1]["id"]
            if inline:
                body.append(f"until: {inline}")
            if later:
                tasks[-1]["status"] = "skip"
        elif taking and (_SUB.match(line) or item):
            body.append(line)
    close()
    for why, items in left.items():
        if notes is not None:
            notes.append(f"not tasks, {why}: {', '.join(items)}")
    return {"task": tasks}
