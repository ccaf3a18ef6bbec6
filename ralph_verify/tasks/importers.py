"""Task lists of other tools, read in memory for ``run --tasks FILE``: snarktank's
``prd.json`` and any Markdown checklist (``fix_plan.md``, ``- [ ] ...``); ``tasks.toml``
is read as it is. Each becomes the table of a task file and goes through the one
validation (:func:`ralph_verify.tasks.model.from_data`).

In every format a task's checks are written inline, as an acceptance criterion, a line or
a sub-item ``until: SPECS``; a few prose criteria map unambiguously ("Typecheck passes" ->
``types``). What the other tool calls done (``"passes": true``, ``- [x]``) is a claim: the
task is still verified, and ``already`` when its checks pass before any work.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ralph_verify.errors import ConfigError
from ralph_verify.tasks.formats import (
    from_ralph_tasks,
    from_speckit,
    from_taskmaster,
    is_ralph_tasks,
    is_taskmaster,
    looks_like_speckit,
    split_checks,
)
from ralph_verify.tasks.model import ID, TaskList, from_data, read_toml

KNOWN = ("a tasks.toml, a prd.json, a ralph-tasks.json, a Taskmaster tasks.json, a spec-kit "
         "tasks.md or a Markdown checklist (.md)")

#: Prose criteria whose check is unambiguous.
_PROSE = ((re.compile(r"\btype ?checks? pass", re.I), "types"),
          (re.compile(r"\blint(?:ing)? passes", re.I), "lint"),
          (re.compile(r"^\s*(?:all )?tests pass\.?\s*$", re.I), "tests"))
_ITEM = re.compile(r"^(?P<indent>\s*)[-*]\s+\[(?P<mark>[ xX])\]\s+(?P<text>.+?)\s*$")
_SUB = re.compile(r"^(?P<indent>\s+)[-*]\s+(?P<text>.+?)\s*$")
_HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*$")
_LATER = re.compile(r"\b(optional|future|later|nice to have)\b", re.I)


def load_any(path: Path, *, resolve: Any = None) -> TaskList:
    """A ``tasks.toml``, a ``prd.json`` or a Markdown checklist, by name or content."""
    if path.suffix.lower() == ".toml":
        data, raw = read_toml(path)
        return from_data(data, path, raw=raw, resolve=resolve)
    data, raw = translate(path)
    return from_data(data, path, raw=raw, resolve=resolve)


def translate(path: Path) -> tuple[dict[str, Any], bytes]:
    """A ``prd.json`` or a Markdown checklist as the table of a task file, and its bytes."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"task file {path}: cannot be read "
                          f"({getattr(exc, 'strerror', None) or exc})") from None
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"{path}: not valid JSON: {exc}") from None
        data = _from_json(path, document)
    elif path.suffix.lower() in (".md", ".markdown", ".txt"):
        data = from_speckit(text) if looks_like_speckit(text) else from_checklist(text)
    else:
        raise ConfigError(f"{path}: unknown task file format; give {KNOWN}")
    return data, raw


def _from_json(path: Path, document: Any) -> dict[str, Any]:
    """A JSON task list by its content (its name breaks a tie): a prd.json, a
    ralph-tasks.json or a Taskmaster tasks.json."""
    if isinstance(document, dict):
        if isinstance(document.get("userStories"), list):
            return from_prd(document)
        if isinstance(document.get("tasks"), list) and (
                path.name == "ralph-tasks.json" or is_ralph_tasks(document)):
            return from_ralph_tasks(document)
        if is_taskmaster(document):
            return from_taskmaster(document)
    raise ConfigError(f"{path}: not a task list this reads (no userStories, no tasks list); "
                      f"give {KNOWN}")


def to_toml(data: dict[str, Any]) -> str:
    """The table of a task file as ``tasks.toml`` text (JSON strings are TOML strings)."""
    out: list[str] = []
    if data.get("defaults"):
        out.append("[defaults]")
        out += [f"{key} = {json.dumps(value, ensure_ascii=False)}"
                for key, value in data["defaults"].items()]
        out.append("")
    for table in data.get("task", []):
        out.append("[[task]]")
        for key, value in table.items():
            out.append(f"{key} = {json.dumps(value, ensure_ascii=False)}")
        out.append("")
    return "\n".join(out)


def _checks(table: dict[str, Any], lines: list[str]) -> list[str]:
    """Set the task ``table``'s checks from ``lines``: its ``until:`` specs, and the checks
    prose names ("Typecheck passes" -> types) as ``keep``, never its evidence; the other
    lines are returned."""
    specs, prose = split_checks(lines, keep_blank=True)
    mapped = [check for line in prose for pattern, check in _PROSE if pattern.search(line)]
    if specs:
        table["until"] = ",".join(dict.fromkeys(specs))
    if mapped:
        table["keep"] = ",".join(dict.fromkeys(mapped))
    return prose


def _slug(text: str, number: int) -> str:
    return text if ID.match(text) else f"T{number}"


def from_prd(document: dict[str, Any]) -> dict[str, Any]:
    """snarktank/ralph's ``prd.json``: user stories in priority order, ``dependsOn`` kept,
    acceptance criteria in the prompt (``until:`` ones and unambiguous ones as checks)."""
    stories = [s for s in document["userStories"] if isinstance(s, dict)]
    stories.sort(key=lambda s: s["priority"] if isinstance(s.get("priority"), int) else 1 << 30)
    tasks = []
    for number, story in enumerate(stories, 1):
        criteria = [str(c) for c in story.get("acceptanceCriteria") or []]
        table: dict[str, Any] = {"id": _slug(str(story.get("id") or ""), number),
                                 "title": str(story.get("title") or "")}
        prose = _checks(table, criteria)
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


def from_checklist(text: str) -> dict[str, Any]:
    """A Markdown checklist: one task per ``- [ ]`` item in file order, its sub-items (with
    ``until:``) under it; items under an "Optional"/"Future" heading are skipped."""
    tasks: list[dict[str, Any]] = []
    later = False
    body: list[str] = []

    def close() -> None:
        if tasks:
            prose = _checks(tasks[-1], body)
            if prose:
                tasks[-1]["prompt"] += "\n" + "\n".join(line.strip() for line in prose)
        body.clear()

    for line in text.splitlines():
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if heading:
            close()
            later = bool(_LATER.search(heading["title"]))
        elif item and not item["indent"]:
            close()
            title, _, inline = item["text"].partition(" until: ")
            number = len(tasks) + 1
            tasks.append({"id": f"T{number}", "title": title.strip(), "prompt": title.strip()})
            if inline:
                body.append(f"until: {inline}")
            if later:
                tasks[-1]["status"] = "skip"
        elif tasks and (_SUB.match(line) or item):
            body.append(line)
    close()
    return {"task": tasks}
