"""Which agent session drives a hook-mode loop, proved by more than a value the agent can read.

The ``session_id`` of a Stop hook's payload is no proof: ``.ralph/state.json`` shows it, and
any process in the project can send a payload naming it (with a ``BLOCKED`` promise, to end
another session's loop). So the binding is kept outside the project (beside the cancel key,
in the user's ralph-verify folder, mode 0600) and holds, besides the session id:

- the hook's ``transcript_path`` (the agent's own record of that session);
- the processes the hook ran under (each a pid *and* its start time, nearest first): the
  agent's process is among them, the hook's own shell and wrappers are gone by the next stop.

A later stop is that session's only if it names the same session and transcript, and the
nearest of the bound processes still alive is among its own ancestors: the agent session
that stops again runs its hook under the same agent process; a second session's hook (or a
command its agent runs by hand) runs under another. A stop that passes renews the processes
(an agent restarted with ``--resume`` is bound afresh through what it shares with the old).
``start`` run by the agent itself (``$CLAUDE_CODE_SESSION_ID`` set) binds at once; else the
first Stop hook call binds. Where processes cannot be read (no ``/proc``), only the session
id and transcript are compared.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ralph_verify.loop import cancel_key
from ralph_verify.proc.info import ancestry, start_time
from ralph_verify.state_files import write_text_atomic

#: What a refused stop answers (the loop is not touched).
REFUSED = ("ralph-verify: ignored a Stop hook call that names this loop's agent session but "
           "does not come from it ({why}); the loop goes on. If it is the loop's own session, "
           "restarted elsewhere: 'ralph-verify cancel', then start the loop again. Details: "
           ".ralph/hook.log")


def binding_path(root: Path) -> Path:
    return cancel_key.outside_file(root, "hook", "json")


def read(root: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(binding_path(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write(root: Path, data: dict[str, Any]) -> None:
    path = binding_path(root)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_text_atomic(path, json.dumps(data, indent=1) + "\n")


def bind_at_start(root: Path, loop: str, session_id: str | None, in_session: bool) -> None:
    """Record the loop ``start`` began: bound to ``session_id`` (and, when ``start`` runs in
    that session, to the processes it runs under), or to nobody until the first stop."""
    write(root, {"loop": loop, "session_id": session_id, "transcript_path": None,
                 "processes": _chain() if in_session and session_id else None})


def _chain() -> list[list[Any]]:
    return [[pid, started] for pid, started in ancestry()]


def _anchor(processes: list[Any]) -> tuple[int, str] | None:
    """The nearest bound process still alive (same pid, same start time)."""
    for entry in processes:
        try:
            pid, started = int(entry[0]), str(entry[1])
        except (TypeError, ValueError, IndexError):
            continue
        if start_time(pid) == started:
            return pid, started
    return None


def admit(root: Path, loop: str, payload: dict[str, Any],
          recorded: str | None = None) -> tuple[str, str]:
    """Whether this stop belongs to the loop's session: ``("other", "")`` (another session's:
    say nothing), ``("refused", why)`` (names the session, does not come from it) or
    ``("ok", how)`` (``how``: ``"bound"`` if this call just bound the loop). Renews the
    binding of an admitted stop. ``recorded``: the session ``.ralph/state.json`` names, heeded
    only when there is no binding (a loop of an older version, or ``start`` run with another
    user folder than the hook's, e.g. another ``$XDG_CACHE_HOME``)."""
    session_id = str(payload.get("session_id") or "")
    transcript = payload.get("transcript_path")
    transcript = str(transcript) if transcript else None
    data = read(root)
    if data is None and recorded:
        data = {"loop": loop, "session_id": recorded, "transcript_path": None,
                "processes": None}
    if data is not None and data.get("loop") != loop:
        if data.get("session_id") not in (None, session_id):
            return "other", ""
        return "refused", (f"the loop in .ralph/state.json ({loop}) is not the one ralph-verify "
                           f"started ({data.get('loop')}): 'ralph-verify cancel', then start "
                           "again")
    if data is None or data.get("session_id") is None:
        if not session_id:
            return "other", ""
        write(root, {"loop": loop, "session_id": session_id, "transcript_path": transcript,
                     "processes": _chain()})
        return "ok", "bound"
    if data["session_id"] != session_id:
        return "other", ""
    bound_transcript = data.get("transcript_path")
    if bound_transcript and transcript != bound_transcript:
        return "refused", f"its transcript is {transcript or 'not given'}, not {bound_transcript}"
    processes = data.get("processes")
    chain = ancestry()
    if isinstance(processes, list) and processes and chain:
        anchor = _anchor(processes)
        if anchor is not None and anchor not in chain:
            return "refused", (f"it does not run under the session's process {anchor[0]} "
                               f"(it runs under {', '.join(str(p) for p, _ in chain[1:4])})")
    data.update(transcript_path=bound_transcript or transcript,
                processes=[[pid, started] for pid, started in chain] or processes)
    write(root, data)
    return "ok", ""


def here() -> str:
    """This process and its parent, for the log."""
    return f"pid {os.getpid()}, parent {os.getppid()}"
