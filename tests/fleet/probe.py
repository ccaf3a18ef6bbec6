"""A plugin that records the loop hooks it sees, with the fleet task they fired in: loaded
through ``RALPH_VERIFY_PLUGINS`` in every ``ralph-verify`` a test's environment reaches, as a
plugin a user installed would be."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

#: A plugin (loaded through ``RALPH_VERIFY_PLUGINS``, like one a user installs) that records
#: each loop hook with the fleet task it fired in.
PROBE = '''\
import json, os
from ralph_verify import hookimpl


def _record(hook, **fields):
    with open(os.environ["FLEET_HOOK_LOG"], "a") as log:
        log.write(json.dumps({"hook": hook, "task": os.environ.get("RALPH_TASK_ID"),
                              **fields}) + "\\n")


@hookimpl
def ralph_session_start(session):
    _record("ralph_session_start")


@hookimpl
def ralph_iteration_start(session, iteration):
    _record("ralph_iteration_start", iteration=iteration.number)


@hookimpl(wrapper=True)
def ralph_runloop(session, first):
    _record("ralph_runloop", first=first)
    return (yield)


@hookimpl(wrapper=True)
def ralph_run_iteration(session, iteration):
    _record("ralph_run_iteration", iteration=iteration.number)
    return (yield)


@hookimpl
def ralph_session_finish(session, verdict):
    _record("ralph_session_finish", verdict=verdict.verdict.value)
'''


def probe_env(where: Path) -> dict[str, str]:
    """The environment that loads the probe plugin in every ``ralph-verify`` it reaches."""
    (where / "fleet_hook_probe.py").write_text(PROBE)
    path = os.pathsep.join(filter(None, [str(where), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "RALPH_VERIFY_PLUGINS": "fleet_hook_probe",
            "FLEET_HOOK_LOG": str(where / "hooks.jsonl")}


def fired(where: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Per task, the hooks that fired in its loop, in order."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    for line in (where / "hooks.jsonl").read_text().splitlines():
        record = json.loads(line)
        task = record.pop("task")
        found.setdefault(task, []).append(tuple(record.values()))
    return found


EXPECTED = [("ralph_session_start",), ("ralph_runloop", 1), ("ralph_run_iteration", 1),
            ("ralph_iteration_start", 1), ("ralph_session_finish", "complete")]
