"""Three more task lists of other tools read as a task file's table (``importers.translate``):
the ralph-loop skill's ``ralph-tasks.json``, spec-kit's ``tasks.md``, Taskmaster's
``tasks.json``. What a reader leaves out of a file it says, in ``notes``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ralph_verify.tasks.model import ID

#: A criterion, line or sub-item that gives a task its checks: ``until: SPECS``.
UNTIL = re.compile(r"^\s*(?:[-*]\s*)?until:\s*(?P<specs>\S.*?)\s*$", re.I)
#: A spec-kit task line: ``- [ ] T001 [P] [US1] Text in src/x.py``; spec-kit's template
#: writes ``TXXX`` for a task it leaves unnumbered (a placeholder, read as a new id).
#: (``tasks export --to tasks.md`` writes any other id in backticks: ``- [X] `US-001` ...``.)
SPECKIT_ITEM = re.compile(r"^(?P<indent>\s*)[-*]\s+\[(?P<mark>[ xX])\]\s+"
                          r"(?:(?P<id>T\d{2,})|(?P<placeholder>T\d*[Xx?#]{2,}[\dXx?#]*)"
                          r"|`(?P<quoted>[A-Za-z0-9][A-Za-z0-9._-]*)`)(?![\w-])"
                          r"(?P<rest>.*?)\s*$")
_DEPENDS = re.compile(r"^\s*[-*]\s*depends-on:\s*(?P<ids>.*?)\s*$", re.I)
_TAG = re.compile(r"^\s*\[(?P<tag>[^\]]+)\]")
_PHASE = re.compile(r"^##\s+(?P<title>.+?)\s*$")  # a phase; ### is a part of one
#: Taskmaster statuses that say the task is not to be done.
_TASKMASTER_SKIP = frozenset({"deferred", "cancelled"})
#: Prose criteria whose check is unambiguous (kept by the task, never its evidence).
_PROSE = ((re.compile(r"\btype ?checks? pass", re.I), "types"),
          (re.compile(r"\blint(?:ing)? passes", re.I), "lint"),
          (re.compile(r"^\s*(?:all )?tests pass\.?\s*$", re.I), "tests"))


def quote_cmd(command: str) -> str:
    """``cmd:"COMMAND"`` in the ``--until`` grammar (quotes and backslashes escaped)."""
    return 'cmd:"' + command.replace("\\", "\\\\").replace('"', '\\"') + '"'


def split_checks(lines: list[str]) -> tuple[list[str], list[str]]:
    """The ``until:`` specs among ``lines`` and the other lines that are not blank."""
    specs: list[str] = []
    prose: list[str] = []
    for line in lines:
        match = UNTIL.match(line)
        if match:
            specs.append(match["specs"])
        elif line.strip():
            prose.append(line)
    return specs, prose


def criteria(table: dict[str, Any], lines: list[str]) -> list[str]:
    """Set the task ``table``'s checks from ``lines``: its ``until:`` specs, and the checks
    prose names ("Typecheck passes" -> types) as ``keep``, never its evidence; the other
    lines are returned."""
    specs, prose = split_checks(lines)
    mapped = [check for line in prose for pattern, check in _PROSE if pattern.search(line)]
    table.update(_until(specs))
    if mapped:
        table["keep"] = ",".join(dict.fromkeys(mapped))
    return prose


def by_priority(items: list[Any]) -> list[dict[str, Any]]:
    """The objects among ``items``, lowest ``priority`` first (file order breaks ties; one
    without a priority comes after those with one)."""
    tables = [item for item in items if isinstance(item, dict)]
    return sorted(tables, key=lambda t: t["priority"] if isinstance(t.get("priority"), int)
                  and not isinstance(t.get("priority"), bool) else 1 << 30)


def slug(text: str, number: int) -> str:
    """A task's id: its own when it is a valid one, else ``T<number>``."""
    return text if ID.match(text) else f"T{number}"


def _lines(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(item) for item in value]
    return str(value or "").splitlines()


def _until(specs: list[str]) -> dict[str, Any]:
    return {"until": ",".join(dict.fromkeys(specs))} if specs else {}


def json_kind(path: Path, document: Any) -> str | None:
    """Which JSON task list ``document`` is, by its content (its name breaks a tie)."""
    if not isinstance(document, dict):
        return None
    if isinstance(document.get("userStories"), list):
        return "prd.json"
    if isinstance(document.get("tasks"), list) and (path.name == "ralph-tasks.json"
                                                   or is_ralph_tasks(document)):
        return "ralph-tasks.json"
    return "tasks.json" if is_taskmaster(document) else None


def is_ralph_tasks(document: dict[str, Any]) -> bool:
    tasks = document.get("tasks")
    return isinstance(tasks, list) and (
        any(key in document for key in ("verifyCommand", "maxIterations", "promptFile",
                                        "maxParallel"))
        or any(isinstance(t, dict) and ("acceptance" in t or "acceptanceCriteria" in t
                                        or "passes" in t) for t in tasks))


def from_ralph_tasks(document: dict[str, Any], shared: str = "") -> dict[str, Any]:
    """The ralph-loop skill's ``ralph-tasks.json`` (and its older shape), by priority;
    ``shared``, its ``promptFile``'s text, follows every task's prompt as its runner does."""
    defaults: dict[str, Any] = {}
    command = document.get("verifyCommand")
    if isinstance(command, str) and command.strip():
        defaults["keep"] = ["tests:new", quote_cmd(command.strip())]
    if isinstance(document.get("maxIterations"), int) and document["maxIterations"] > 0:
        defaults["max-iterations"] = document["maxIterations"]
    tasks = []
    for number, item in enumerate(by_priority(document["tasks"]), 1):
        description = str(item.get("description") or "").strip()
        table: dict[str, Any] = {
            "id": slug(str(item.get("id") or ""), number),
            "title": str(item.get("title") or (description.splitlines() or [""])[0])[:120]}
        prose = criteria(table, _lines(item.get("acceptanceCriteria"))
                         + _lines(item.get("acceptance")))
        prompt = description
        if prose:
            prompt += "\n\nAcceptance criteria:\n" + "\n".join(f"- {c.strip()}" for c in prose)
        if shared.strip():
            prompt += "\n\n" + shared.strip()
        tasks.append({**table, "prompt": prompt.strip()})
    data: dict[str, Any] = {"task": tasks}
    if defaults:
        data["defaults"] = defaults
    return data


def is_taskmaster(document: dict[str, Any]) -> bool:
    tasks = taskmaster_tasks(document)
    return tasks is not None and any(
        isinstance(t, dict) and ("testStrategy" in t or "subtasks" in t or "details" in t
                                 or "dependencies" in t) for t in tasks)


def taskmaster_tasks(document: dict[str, Any]) -> list[Any] | None:
    if isinstance(document.get("tasks"), list):
        return list(document["tasks"])
    # The tagged format: {"master": {"tasks": [...], "metadata": {...}}, "feature-x": {...}}
    tag = document.get("master") if isinstance(document.get("master"), dict) else next(
        (v for v in document.values() if isinstance(v, dict) and isinstance(v.get("tasks"),
                                                                            list)), None)
    return list(tag["tasks"]) if isinstance(tag, dict) and isinstance(tag.get("tasks"),
                                                                     list) else None


def _tm_text(item: dict[str, Any]) -> tuple[list[str], str]:
    """A Taskmaster task's checks and prompt (description, details, test strategy)."""
    specs: list[str] = []
    parts = []
    for key, label in (("description", ""), ("details", "Details:\n"),
                       ("testStrategy", "Test strategy:\n")):
        found, prose = split_checks(_lines(item.get(key)))
        specs += found
        if prose:
            parts.append(label + "\n".join(prose))
    return specs, "\n\n".join(parts)


def from_taskmaster(document: dict[str, Any]) -> dict[str, Any]:
    """Taskmaster's ``tasks.json`` (plain or tagged): each subtask a task ``P.S``; a parent
    without checks of its own is replaced by its subtasks; ``deferred``/``cancelled`` skip."""
    items = [t for t in taskmaster_tasks(document) or [] if isinstance(t, dict)]
    tasks: list[dict[str, Any]] = []
    #: What a dependency on a task id means: the task, or all its subtasks.
    ends: dict[str, list[str]] = {}
    for item in items:
        parent = str(item.get("id"))
        subs = [s for s in item.get("subtasks") or [] if isinstance(s, dict)]
        specs, _ = _tm_text(item)
        ends[parent] = [parent] if specs or not subs else [
            f"{parent}.{s.get('id')}" for s in subs]
    for item in items:
        parent = str(item.get("id"))
        deps = [str(d) for d in item.get("dependencies") or []]
        specs, prompt = _tm_text(item)
        skip = str(item.get("status", "")).lower() in _TASKMASTER_SKIP
        sub_ids = []
        for sub in (s for s in item.get("subtasks") or [] if isinstance(s, dict)):
            sub_id = f"{parent}.{sub.get('id')}"
            sub_specs, sub_prompt = _tm_text(sub)
            sub_deps = [f"{parent}.{d}" if isinstance(d, int) or "." not in str(d) else str(d)
                        for d in sub.get("dependencies") or []]
            table: dict[str, Any] = {
                "id": sub_id, "title": str(sub.get("title") or sub_id), "prompt": sub_prompt
                + f"\n\nPart of task {parent} ({item.get('title', '')}):\n{prompt}".rstrip(),
                "depends-on": _expand(deps, ends) + sub_deps, **_until(sub_specs)}
            if skip or str(sub.get("status", "")).lower() in _TASKMASTER_SKIP:
                table["status"] = "skip"
            tasks.append(table)
            sub_ids.append(sub_id)
        if ends[parent] == [parent]:
            table = {"id": parent, "title": str(item.get("title") or parent), "prompt": prompt,
                     "depends-on": sub_ids or _expand(deps, ends), **_until(specs)}
            if skip:
                table["status"] = "skip"
            tasks.append(table)
    return {"task": tasks}


def _expand(deps: list[str], ends: dict[str, list[str]]) -> list[str]:
    return [end for dep in deps for end in ends.get(dep, [dep])]


def looks_like_speckit(text: str) -> bool:
    return any(SPECKIT_ITEM.match(line) for line in text.splitlines())


def from_speckit(text: str, notes: list[str] | None = None,
                 at: dict[int, str] | None = None) -> dict[str, Any]:
    """spec-kit's ``tasks.md``: a ``## Phase`` is a barrier; a ``[P]`` task waits only for
    the phases before, the others also for the task before them; ``TXXX`` gets the next free
    number (said in ``notes``); ``at`` gets each task's line number (for ``tasks export``)."""
    items = [SPECKIT_ITEM.match(line) for line in text.splitlines()]
    numbers = [int(m["id"][1:]) for m in items if m and m["id"]]
    width = max([3, *(len(m["id"]) - 1 for m in items if m and m["id"])])
    free = max(numbers, default=0) + 1
    named: list[tuple[int, str, str]] = []
    tasks: list[dict[str, Any]] = []
    phase: list[str] = []
    barrier: list[str] = []
    heading = ""
    body: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines()):
        head = _PHASE.match(line)
        item = items[number]
        if head:
            if phase:
                barrier, phase = list(phase), []
            heading = head["title"]
        elif item and not item["indent"]:
            rest, tags = item["rest"], []
            while (tag := _TAG.match(rest)) is not None:
                tags.append(tag["tag"].strip())
                rest = rest[tag.end():]
            title, _, inline = rest.strip().partition(" until: ")
            task_id = item["id"] or item["quoted"]
            if task_id is None:  # TXXX
                task_id = f"T{free:0{width}d}"
                free += 1
                named.append((number + 1, item["placeholder"], task_id))
            parallel = "P" in tags
            deps = list(barrier) + ([] if parallel or not phase else [phase[-1]])
            story = " ".join(f"[{t}]" for t in tags if t != "P")
            table: dict[str, Any] = {"id": task_id, "title": title.strip(),
                                     "prompt": title.strip(), "depends-on": deps}
            if heading:
                table["notes"] = f"{heading}" + (f"; story {story}" if story else "")
            tasks.append(table)
            if at is not None:
                at[number] = task_id
            body[task_id] = [f"until: {inline}"] if inline else []
            phase.append(task_id)
        elif tasks and line.strip() and line[:1].isspace():
            body[tasks[-1]["id"]].append(line)
    if named and notes is not None:
        notes.append(f"{len(named)} tasks have a placeholder for an id ({named[0][1]}, as in "
                     f"spec-kit's template; lines {', '.join(str(n[0]) for n in named)}): read "
                     f"as {named[0][2]}..{named[-1][2]}; give them ids of their own, or delete "
                     "the ones that are not work")
    for table in tasks:
        lines = []
        for line in body[table["id"]]:
            depends = _DEPENDS.match(line)  # written by 'tasks export': the graph as it was
            if re.match(r"^\s*[-*]\s*status:\s*skip\s*$", line):
                table["status"] = "skip"
            elif depends:
                table["depends-on"] = [d for d in re.split(r"[\s,]+", depends["ids"]) if d]
            else:
                lines.append(line)
        specs, prose = split_checks(lines)
        table.update(_until(specs))
        if prose:
            table["prompt"] += "\n" + "\n".join(line.strip() for line in prose)
    return {"task": tasks}
