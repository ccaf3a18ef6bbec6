"""Running as an agent hook: read the JSON on stdin, answer on stdout, never wedge the agent.

Claude Code treats a hook's exit code 2 as "block" and shows stderr to the
model, so an ordinary ``ERROR: ...`` exit of ralph-verify (bad config: exit 2)
would trap a session in a loop. :func:`safe_main` therefore runs every
``ralph-verify hook ...`` invocation so that it always exits 0: an error, a
crash or an exhausted time budget lets the agent go on (no block, no denial),
tells the user in a ``systemMessage`` and appends the reason to
``.ralph/hook.log``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.state_files import now_iso

if TYPE_CHECKING:
    from ralph_verify.config import Config

LOG_NAME = "hook.log"
GUARD_LOG = "guard.jsonl"
#: stdin larger than this is not a hook payload we understand.
MAX_STDIN = 8 * 1024 * 1024


def emit(payload: Mapping[str, Any]) -> None:
    """Print the hook's one JSON answer."""
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def log(root: Path | None, action: str, message: str) -> None:
    """Append one line (and any traceback) to ``ROOT/.ralph/hook.log``; never raises."""
    from ralph_verify.redact import redact

    stamp = now_iso()
    try:
        folder = (root or Path.cwd()) / ".ralph"
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / LOG_NAME).open("a", encoding="utf-8") as handle:
            handle.write(redact(f"{stamp} pid {os.getpid()} hook {action}: {message}\n"))
    except OSError:
        pass


def _project_root() -> Path | None:
    from ralph_verify.config import find_root

    env = os.environ.get("CLAUDE_PROJECT_DIR")
    try:
        return Path(env).resolve() if env else find_root(Path.cwd().resolve())
    except OSError:
        return None


def safe_main(argv: Sequence[str], plugins: Sequence[object] = ()) -> int:
    """``ralph-verify hook ACTION``: the normal main, but whatever happens, exit 0."""
    from ralph_verify.session import _main

    action = argv[1] if len(argv) > 1 else "?"
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            code = _main(list(argv), plugins)
    except BaseException as exc:  # a hook must never fail the agent, not even on Ctrl-C
        code = 4
        err.write(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
    if code == 0:
        sys.stderr.write(err.getvalue())
        return 0
    text = err.getvalue().strip() or f"exit code {code}"
    log(_project_root(), action, f"failed (exit {code}), letting the agent go on:\n{text}")
    from ralph_verify.redact import cut

    first = cut(text.splitlines()[0], 300) if text else ""
    if action.endswith("-stop"):
        emit({"systemMessage": f"ralph-verify hook {action} failed ({first}); "
                               "Claude may stop. Details: .ralph/hook.log"})
    else:
        sys.stderr.write(f"ralph-verify hook {action} failed: {first}\n")
    return 0


def read_payload() -> dict[str, Any]:
    """The hook's JSON from stdin; ``{}`` when there is none."""
    raw = sys.stdin.read(MAX_STDIN) if sys.stdin is not None else ""
    if not raw.strip():
        return {}
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError(f"hook input is JSON {type(data).__name__}, not an object")
    return data


def run_hook(config: Config, action: str) -> int:
    """The ``hook`` command: dispatch on the action."""
    payload = read_payload()
    if action in ("claude-stop", "codex-stop"):
        from ralph_verify.stophook import stop_hook

        return stop_hook(config, payload, agent=action.split("-")[0])
    return pretool_hook(config, payload, agent=action.split("-")[0])


# --- the PreToolUse guard ------------------------------------------------------------------


def guard_policy(config: Config, payload: Mapping[str, Any]) -> Any:
    """The :class:`~ralph_verify.guard.Policy` from ``[tool.ralph-verify.guard]``."""
    from ralph_verify.guard import (
        DEFAULT_METADATA_HOSTS,
        DEFAULT_PUBLIC_PATTERNS,
        DEFAULT_SECRET_PATTERNS,
        Policy,
    )
    from ralph_verify.guard_settings import GuardSettings

    settings = config.get("guard") or GuardSettings()
    root = config.root
    cwd_text = payload.get("cwd")
    cwd = Path(cwd_text) if isinstance(cwd_text, str) and cwd_text else Path.cwd()
    prefix = settings.session_branch_prefix or config.get("branch_prefix")
    return Policy(
        root=root, cwd=cwd, disabled=frozenset(settings.disable),
        allow_paths=tuple(Path(p).expanduser() if Path(p).expanduser().is_absolute()
                          else root / p for p in settings.allow_paths),
        secret_patterns=tuple(settings.secret_patterns or DEFAULT_SECRET_PATTERNS),
        public_patterns=tuple(settings.public_patterns if settings.public_patterns is not None
                              else DEFAULT_PUBLIC_PATTERNS),
        metadata_hosts=tuple(settings.metadata_hosts or DEFAULT_METADATA_HOSTS),
        session_branch_prefix=str(prefix))


def pretool_hook(config: Config, payload: Mapping[str, Any], agent: str) -> int:
    """Deny a tool call that breaks a guard rule; print nothing for one that does not."""
    from ralph_verify.guard import evaluate
    from ralph_verify.guard_settings import GuardSettings

    settings = config.get("guard") or GuardSettings()
    if not settings.enabled:
        return 0
    tool = str(payload.get("tool_name") or "")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, Mapping):
        tool_input = {}
    refusal = evaluate(tool, tool_input, guard_policy(config, payload))
    if refusal is None:
        return 0
    # Codex has no "ask": what the guard cannot read is refused there.
    decision = refusal.decision if agent.startswith("claude") else "deny"
    verb = "refused" if decision == "deny" else "asks the user about"
    reason = (f"ralph-verify guard {verb} this {tool or 'tool'} call (rule {refusal.rule}): "
              f"{refusal.reason}. Do not try to get around the guard; if the step is really "
              "needed, say so and leave it to the user.")
    record_refusal(config.root, {
        "agent": agent, "session_id": payload.get("session_id"), "tool": tool,
        "rule": refusal.rule, "reason": refusal.reason, "decision": decision,
        "input": _brief(tool_input)})
    emit({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                 "permissionDecision": decision,
                                 "permissionDecisionReason": reason},
          "systemMessage": f"ralph-verify guard: {verb} {tool} ({refusal.rule})"})
    return 0


def _brief(tool_input: Mapping[str, Any]) -> dict[str, Any]:
    keep = ("command", "cmd", "file_path", "notebook_path", "path", "url")
    from ralph_verify.redact import cut

    return {key: cut(str(tool_input[key]), 500) for key in keep if key in tool_input}


def record_refusal(root: Path, record: dict[str, Any]) -> None:
    """One line per refusal in ``.ralph/guard.jsonl`` (``status`` counts them)."""
    from ralph_verify.redact import redact, redact_data

    record = {"time": now_iso(), **record}
    folder = root / ".ralph"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / GUARD_LOG).open("a", encoding="utf-8") as handle:
        handle.write(redact(json.dumps(redact_data(record))) + "\n")


def refusal_counts(root: Path) -> dict[str, int]:
    """Refusals by rule, from ``.ralph/guard.jsonl``."""
    counts: dict[str, int] = {}
    try:
        with (root / ".ralph" / GUARD_LOG).open(encoding="utf-8") as handle:
            for line in handle:
                with contextlib.suppress(ValueError, AttributeError):
                    rule = str(json.loads(line).get("rule"))
                    counts[rule] = counts.get(rule, 0) + 1
    except OSError:
        pass
    return counts


# --- the /ralph-verify slash command --------------------------------------------------------


def _token(text: str) -> tuple[str, str]:
    """The first shell-like word of ``text`` (quotes kept inside it) and the rest."""
    text = text.lstrip()
    quote = ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char.isspace():
            return text[:index], text[index:]
    return text, ""


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        return word[1:-1]
    return word


def slash_argv(text: str) -> list[str]:
    """``start --until tests fix (the) <bug>`` -> ``["start", "--until", "tests", TASK]``.

    The user's words come verbatim (the plugin passes them through a quoted
    heredoc): options first, then the task as one argument, however many quotes,
    parentheses or angle brackets it holds. ``cancel`` and ``status`` take nothing.
    """
    word, rest = _token(text.strip())
    if word in ("cancel", "status"):
        return [word]
    if word in ("", "help", "--help", "-h"):
        return ["start", "--help"]
    if word != "start":
        rest = text  # "/ralph-verify --until tests fix it" means start
    argv = ["start"]
    while True:
        option, after = _token(rest)
        if not option.startswith("--"):
            break
        name, equals, value = option.partition("=")
        if not equals:
            value, after = _token(after)
        argv += [name, _unquote(value)]
        rest = after
    task = _unquote(rest.strip())
    return [*argv, "--", task] if task else argv
