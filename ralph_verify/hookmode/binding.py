"""Which agent session drives a hook-mode loop, proved by more than a value the agent can read:
the binding, kept outside the project (0600), holds the session's transcript and the processes
the hook ran under; a later stop must name both and run under a bound process still alive."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph_verify.loop import cancel_key
from ralph_verify.proc.info import ancestry, start_time
from ralph_verify.records.codec import ShapeError, decode, encode
from ralph_verify.state_files import write_text_atomic

#: What a refused stop answers (the loop is not touched).
REFUSED = ("ralph-verify: ignored a Stop hook call that names this loop's agent session but "
           "does not come from it ({why}); the loop goes on. If it is the loop's own session, "
           "restarted elsewhere: 'ralph-verify cancel', then 'ralph-verify start --resume' "
           "there. Details: .ralph/hook.log")


def binding_path(root: Path) -> Path:
    return cancel_key.outside_file(root, "hook", "json")


@dataclass
class Binding:
    """The binding file: the loop, and the agent session it is bound to (``None``: the first
    Stop hook call binds it) with its transcript and processes."""

    loop: str | None = None
    session_id: str | None = None
    transcript_path: str | None = None
    #: ``[pid, start time]`` of each process the hook ran under, nearest first.
    processes: list[list[Any]] | None = None


def read(root: Path) -> Binding | None:
    """The binding; ``None`` when there is none or it is not one (the loop is bound afresh)."""
    try:
        return decode(Binding, json.loads(binding_path(root).read_text(encoding="utf-8")))
    except (OSError, ValueError, ShapeError):
        return None


def write(root: Path, data: Binding) -> None:
    path = binding_path(root)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_text_atomic(path, json.dumps(encode(data), indent=1) + "\n")


def bind_at_start(root: Path, loop: str, session_id: str | None, in_session: bool) -> None:
    """Record the loop ``start`` began: bound to ``session_id`` (and, when ``start`` runs in
    that session, to the processes it runs under), or to nobody until the first stop."""
    write(root, Binding(loop, session_id, None,
                        _chain() if in_session and session_id else None))


def follow(root: Path, loop: str) -> None:
    """A task list's next task opens a new loop for the same agent session: the binding
    (session, transcript, processes) carries over to it."""
    data = read(root)
    if data is not None:
        data.loop = loop
        write(root, data)


def _chain() -> list[list[Any]]:
    return [[pid, started] for pid, started in ancestry()]


def _anchor(processes: list[list[Any]]) -> tuple[int, str] | None:
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
        data = Binding(loop, recorded)
    if data is not None and data.loop != loop:
        if data.session_id not in (None, session_id):
            return "other", ""
        return "refused", (f"the loop in .ralph/state.json ({loop}) is not the one ralph-verify "
                           f"started ({data.loop}): 'ralph-verify cancel', then start "
                           "again")
    if data is None or data.session_id is None:
        if not session_id:
            return "other", ""
        write(root, Binding(loop, session_id, transcript, _chain()))
        return "ok", "bound"
    if data.session_id != session_id:
        return "other", ""
    bound_transcript = data.transcript_path
    if bound_transcript and transcript != bound_transcript:
        return "refused", f"its transcript is {transcript or 'not given'}, not {bound_transcript}"
    processes = data.processes
    chain = ancestry()
    if processes and chain:
        anchor = _anchor(processes)
        if anchor is not None and anchor not in chain:
            return "refused", (f"it does not run under the session's process {anchor[0]} "
                               f"(it runs under {', '.join(str(p) for p, _ in chain[1:4])})")
    data.transcript_path = bound_transcript or transcript
    data.processes = [[pid, started] for pid, started in chain] or processes
    write(root, data)
    return "ok", ""


def here() -> str:
    """This process and its parent, for the log."""
    return f"pid {os.getpid()}, parent {os.getppid()}"


def kept_state_path(root: Path) -> Path:
    """A copy of each state.json we write, beside the binding: the agent could end the loop
    by editing or deleting state.json, so the Stop hook and ``cancel`` start from the copy."""
    return cancel_key.outside_file(root, "hook-state", "json")


def keep_state(root: Path, state_path: Path) -> None:
    """Keep what ralph-verify just wrote to ``state_path`` (its bytes, as written)."""
    try:
        data = state_path.read_bytes()
    except OSError:
        return
    path = kept_state_path(root)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_text_atomic(path, data.decode("utf-8", "replace"))


def restore_state(root: Path, state_path: Path, *, finished: bool = False) -> str | None:
    """Put back the kept state of an active hook-mode loop (``finished``: of a finished one
    too, for ``start --resume``) if ``state_path`` differs from it; what was wrong with it
    (for the agent and the log), or ``None`` when it was intact."""
    try:
        kept = kept_state_path(root).read_bytes()
        data = json.loads(kept)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or (data.get("status") == "finished" and not finished):
        return None  # no active loop: nothing to protect (a later 'run' owns state.json)
    try:
        current: bytes | None = state_path.read_bytes()
    except OSError:
        current = None
    if current == kept or (finished and _run_state(current)):
        return None  # intact, or a later 'run' owns state.json
    state_path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(state_path, kept.decode("utf-8", "replace"))
    what = "deleted" if current is None else "changed"
    return (f".ralph/state.json was {what} outside ralph-verify; it was put back (the loop's "
            "state is kept where the agent cannot write it): do not edit .ralph/, finish the "
            "work instead")


def _run_state(text: bytes | None) -> bool:
    """Is ``text`` the state of a ``run`` session (not hook mode's)?"""
    try:
        data = json.loads(text or b"")
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("mode") not in (None, "hook")
