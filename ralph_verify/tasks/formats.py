"""Three more task lists of other tools, read as the table of a task file: the ralph-loop
skill's ``ralph-tasks.json``, spec-kit's (and Ralph SDD's) ``tasks.md`` and Taskmaster's
``tasks.json``. Each goes through the one validation afterwards (``importers.translate``).

As in every format, a task's checks are a criterion, a line or a sub-item ``until: SPECS``;
what the other tool calls done (``"passes": true``, ``[X]``, ``"status": "done"``) is a
claim the checks decide (``already`` when they pass before any work).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ralph_verify.tasks.model import ID

#: A criterion, line or sub-item that gives a task its checks: ``until: SPECS``.
UNTIL = re.compile(r"^\s*(?:[-*]\s*)?until:\s*(?P<specs>\S.*?)\s*$", re.I)
#: A spec-kit task line: ``- [ ] T001 [P] [US1] Text in src/x.py``.
#: (``tasks export --to tasks.md`` writes any other id in backticks: ``- [X] `US-001` ...``.)
SPECKIT_ITEM = re.compile(r"^(?P<indent>\s*)[-*]\s+\[(?P<mark>[ xX])\]\s+"
                          r"(?:(?P<id>T\d{2,})\b|`(?P<quoted>[A-Za-z0-9][A-Za-z0-9._-]*)`)"
                          r"(?P<rest>.*?)\s*$")
_DEPENDS = re.compile(r"^\s*[-*]\s*depends-on:\s*(?P<ids>.*?)\s*$", re.I)
_TAG = re.compile(r"^\s*\[(?P<tag>[^\]]+)\]")
_PHASE = re.compile(r"^##\s+(?P<title>.+?)\s*$")  # a phase; ### is a part of one
#: Taskmaster statuses that say the task is not to be done.
_TASKMASTER_SKIP = frozenset({"deferred", "cancelled"})


def quote_cmd(command: str) -> str:
    """``cmd:"COMMAND"`` in the ``--until`` grammar (quotes and backslashes escaped)."""
    return 'cmd:"' + command.replace("\\", "\\\\").replace('"', '\\"') + '"'


def split_checks(lines: list[str], *, keep_blank: bool = False,
                 checks_of: Callable[[str], list[str]] | None = None,
                 ) -> tuple[list[str], list[str]]:
    """The ``until:`` specs among ``lines`` and the other lines (``keep_blank``: blank ones
    too); ``checks_of`` adds the checks a prose line names, in line order."""
    specs: list[str] = []
    prose: list[str] = []
    for line in lines:
        match = UNTIL.match(line)
        if match:
            specs.append(match["specs"])
            continue
        if keep_blank or line.strip():
            prose.append(line)
        if checks_of is not None:
            specs += checks_of(line)
    return specs, prose


def _lines(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(item) for item in value]
    return str(value or "").splitlines()


def _until(specs: list[str]) -> dict[str, Any]:
    return {"until": ",".join(dict.fromkeys(specs))} if specs else {}


def is_ralph_tasks(document: dict[str, Any]) -> bool:
    tasks = document.get("tasks")
    return isinstance(tasks, list) and (
        "verifyCommand" in document or "maxIterations" in document
        or any(isinstance(t, dict) and ("acceptance" in t or "passes" in t) for t in tasks))


def from_ralph_tasks(document: dict[str, Any]) -> dict[str, Any]:
    """The ralph-loop skill's ``ralph-tasks.json``: ``tasks`` (id, description, acceptance,
    passes) in file order; ``maxIterations`` per task; ``verifyCommand`` a ``cmd:`` check
    kept by every task (in ``keep``)."""
    defaults: dict[str, Any] = {}
    command = document.get("verifyCommand")
    if isinstance(command, str) and command.strip():
        defaults["keep"] = ["tests:new", quote_cmd(command.strip())]
    if isinstance(document.get("maxIterations"), int) and document["maxIterations"] > 0:
        defaults["max-iterations"] = document["maxIterations"]
    tasks = []
    for number, item in enumerate((t for t in document["tasks"] if isinstance(t, dict)), 1):
        description = str(item.get("description") or item.get("title") or "").strip()
        specs, prose = split_checks(_lines(item.get("acceptance")))
        prompt = description
        if prose:
            prompt += "\n\nAcceptance:\n" + "\n".join(f"- {line.strip()}" for line in prose)
        raw_id = str(item.get("id") if item.get("id") is not None else "")
        title = str(item.get("title") or (description.splitlines() or [""])[0])
        tasks.append({"id": raw_id if ID.match(raw_id) else f"T{number}",
                      "title": title[:120], "prompt": prompt, **_until(specs)})
    data: dict[str, Any] = {"task": tasks}
    if defaults:
        data["defaults"] = defaults
    return data


def is_taskmaster(document: dict[str, Any]) -> bool:
    tasks = _taskmaster_tasks(document)
    return tasks is not None and any(
        isinstance(t, dict) and ("testStrategy" in t or "subtasks" in t or "details" in t
                                 or "dependencies" in t) for t in tasks)


def _taskmaster_tasks(document: dict[str, Any]) -> list[Any] | None:
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
    """Taskmaster's ``tasks.json`` (plain or tagged, ``master`` first): ``dependencies`` kept,
    each subtask a task ``P.S`` after its parent's dependencies; a parent with checks of its
    own runs after its subtasks, one without them is replaced by them; ``deferred`` and
    ``cancelled`` tasks are ``skip``."""
    items = [t for t in _taskmaster_tasks(document) or [] if isinstance(t, dict)]
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


def from_speckit(text: str) -> dict[str, Any]:
    """spec-kit's (and Ralph SDD's) ``tasks.md``: ``- [ ] T001 [P] [US1] text`` lines under
    ``## Phase N`` headings. A phase is a barrier: its tasks wait for every task of the phase
    before; a ``[P]`` task waits only for that, the others also for the task before them in
    the phase. ``[X]`` is a claim; sub-items and a trailing ``until:`` give the checks."""
    tasks: list[dict[str, Any]] = []
    phase: list[str] = []
    barrier: list[str] = []
    heading = ""
    body: dict[str, list[str]] = {}
    for line in text.splitlines():
        head = _PHASE.match(line)
        item = SPECKIT_ITEM.match(line)
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
            parallel = "P" in tags
            deps = list(barrier) + ([] if parallel or not phase else [phase[-1]])
            notes = " ".join(f"[{t}]" for t in tags if t != "P")
            table: dict[str, Any] = {"id": task_id, "title": title.strip(),
                                     "prompt": title.strip(), "depends-on": deps}
            if heading:
                table["notes"] = f"{heading}" + (f"; story {notes}" if notes else "")
            tasks.append(table)
            body[task_id] = [f"until: {inline}"] if inline else []
            phase.append(task_id)
        elif tasks and line.strip() and line[:1].isspace():
            body[tasks[-1]["id"]].append(line)
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
