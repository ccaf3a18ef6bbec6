"""How an agent hook talks: the JSON on stdin, one JSON answer on stdout, ``.ralph/hook.log``.

Claude Code reads exit 2 as "block", so any failure of ``ralph-verify hook ...`` is answered
by :func:`let_the_agent_go_on`: exit 0, no block, a ``systemMessage`` and the reason logged."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ralph_verify.config import find_root
from ralph_verify.redact import cut, redact
from ralph_verify.state_files import now_iso

LOG_NAME = "hook.log"
#: stdin larger than this is not a hook payload we understand.
MAX_STDIN = 8 * 1024 * 1024


def emit(payload: Mapping[str, Any]) -> None:
    """Print the hook's one JSON answer."""
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def log(root: Path | None, action: str, message: str) -> None:
    """Append one line (and any traceback) to ``ROOT/.ralph/hook.log``; never raises."""
    stamp = now_iso()
    try:
        folder = (root or Path.cwd()) / ".ralph"
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / LOG_NAME).open("a", encoding="utf-8") as handle:
            handle.write(redact(f"{stamp} pid {os.getpid()} hook {action}: {message}\n"))
    except OSError:
        pass


def project_root() -> Path | None:
    env = os.environ.get("CLAUDE_PROJECT_DIR")
    try:
        return Path(env).resolve() if env else find_root(Path.cwd().resolve())
    except OSError:
        return None


def let_the_agent_go_on(action: str, code: int, text: str) -> int:
    """The answer to a ``hook ACTION`` that failed with exit ``code`` (``text``: what it said
    on stderr): log why, tell the user, let the agent go on; always 0."""
    text = text.strip() or f"exit code {code}"
    log(project_root(), action, f"failed (exit {code}), letting the agent go on:\n{text}")
    first = cut(text.splitlines()[0], 300)
    if action.endswith("-stop"):
        emit({"systemMessage": f"ralph-verify hook {action} failed ({first}); "
                               "the agent may stop. Details: .ralph/hook.log"})
    else:
        sys.stderr.write(f"ralph-verify hook {action} failed: {first}\n")
    return 0


class HookInputError(ValueError):
    """The hook's stdin is not what the agent's protocol sends; ``str()`` says why, in one
    line, for the user (never a traceback)."""


#: Fields of the hook protocols the hooks read, and the JSON types they must have.
FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "session_id": (str,), "transcript_path": (str, type(None)), "cwd": (str,),
    "hook_event_name": (str,), "stop_hook_active": (bool,), "tool_name": (str,),
    "tool_input": (dict,), "last_assistant_message": (str, type(None)),
    "prompt_response": (str, type(None)), "permission_mode": (str,), "tool_use_id": (str,)}
_JSON_NAMES = {str: "a string", dict: "an object", bool: "true or false", type(None): "null"}


def read_payload() -> dict[str, Any]:
    """The hook's JSON from stdin; ``{}`` when there is none. :class:`HookInputError` for
    input that is too large, not JSON or not a JSON object."""
    raw = sys.stdin.read(MAX_STDIN + 1) if sys.stdin is not None else ""
    if len(raw) > MAX_STDIN:
        raise HookInputError(f"hook input over {MAX_STDIN // (1024 * 1024)} MB")
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise HookInputError(f"hook input is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise HookInputError(f"hook input is JSON {type(data).__name__}, not an object")
    return data


def check_fields(payload: Mapping[str, Any], required: tuple[str, ...] = ()) -> None:
    """:class:`HookInputError` for a field of the protocol with the wrong JSON type, or one
    of ``required`` missing."""
    missing = [name for name in required if name not in payload]
    if missing:
        raise HookInputError(f"hook input has no {', '.join(missing)}")
    for name, types in FIELD_TYPES.items():
        if name in payload and not isinstance(payload[name], types):
            expected = " or ".join(_JSON_NAMES[t] for t in types)
            raise HookInputError(f"hook input field {name!r} is "
                                 f"{type(payload[name]).__name__}, not {expected}")


def unreadable_stop(action: str, reason: str) -> int:
    """The answer to a Stop hook whose input cannot be read: the agent may stop (the safe
    answer: blocking it on input we cannot read could trap it), said in one line."""
    log(project_root(), action, f"ignored: {reason}")
    emit({"systemMessage": f"ralph-verify hook {action}: {cut(reason, 300)}; the agent may "
                           "stop (nothing was verified)"})
    return 0
