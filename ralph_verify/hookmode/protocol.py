"""How an agent hook talks: the JSON on stdin, one JSON answer on stdout, ``.ralph/hook.log``.

Claude Code treats a hook's exit code 2 as "block" and shows stderr to the
model, so an ordinary ``ERROR: ...`` exit of ralph-verify (bad config: exit 2)
would trap a session in a loop. :func:`let_the_agent_go_on` is the answer to any
failure of ``ralph-verify hook ...`` (the ``hook`` command's plugin wraps the whole
command with it): exit 0, no block, no denial, a ``systemMessage`` for the user
and the reason appended to ``.ralph/hook.log``.
"""

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


def read_payload() -> dict[str, Any]:
    """The hook's JSON from stdin; ``{}`` when there is none."""
    raw = sys.stdin.read(MAX_STDIN + 1) if sys.stdin is not None else ""
    if len(raw) > MAX_STDIN:
        raise ValueError(f"hook input over {MAX_STDIN // (1024 * 1024)} MB")
    if not raw.strip():
        return {}
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError(f"hook input is JSON {type(data).__name__}, not an object")
    return data
