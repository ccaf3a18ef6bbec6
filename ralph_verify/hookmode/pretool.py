"""The PreToolUse guard as an agent hook: answer a tool call that breaks a rule of
:mod:`ralph_verify.guard.decide` as the agent expects, and keep a record."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.guard.settings import GuardSettings
from ralph_verify.hookmode.protocol import emit
from ralph_verify.records.refusals import RefusalRecord, record_refusal

if TYPE_CHECKING:
    from ralph_verify.config import Config



def guard_policy(config: Config, payload: Mapping[str, Any], agent: str = "") -> Any:
    """The :class:`~ralph_verify.guard.decide.Policy` from ``[tool.ralph-verify.guard]``."""
    from ralph_verify.guard.decide import (
        DEFAULT_METADATA_HOSTS,
        DEFAULT_PUBLIC_PATTERNS,
        DEFAULT_SECRET_PATTERNS,
        Policy,
    )
    settings: GuardSettings = config.get("guard") or GuardSettings()
    root = config.root
    cwd_text = payload.get("cwd")
    cwd = Path(cwd_text) if isinstance(cwd_text, str) and cwd_text else Path.cwd()
    prefix = settings.session_branch_prefix or config.get("branch_prefix")
    from ralph_verify.guard.sandbox import state_dirs

    allowed = [Path(p).expanduser() if Path(p).expanduser().is_absolute() else root / p
               for p in settings.allow_paths]
    # The agent's own state folders (sessions, logs) are its to write, as in the sandbox.
    allowed += state_dirs(agent, os.environ, Path.home())
    return Policy(
        root=root, cwd=cwd, disabled=frozenset(settings.disable),
        allow_paths=tuple(allowed), allow_hosts=tuple(settings.allow_hosts),
        allow_commands=tuple(settings.allow_commands),
        refuse_localhost=settings.refuse_localhost,
        secret_patterns=tuple(settings.secret_patterns or DEFAULT_SECRET_PATTERNS),
        public_patterns=tuple(settings.public_patterns if settings.public_patterns is not None
                              else DEFAULT_PUBLIC_PATTERNS),
        metadata_hosts=tuple(settings.metadata_hosts or DEFAULT_METADATA_HOSTS),
        session_branch_prefix=str(prefix))


def pretool_hook(config: Config, payload: Mapping[str, Any], agent: str) -> int:
    """Deny a tool call that breaks a guard rule; print nothing for one that does not."""
    from ralph_verify.guard.decide import evaluate
    settings: GuardSettings = config.get("guard") or GuardSettings()
    if not settings.enabled:
        return 0
    tool = str(payload.get("tool_name") or "")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, Mapping):
        tool_input = {}
    try:
        refusal = evaluate(tool, tool_input, guard_policy(config, payload, agent))
    except Exception as exc:  # a guard that fails must refuse, never let the call through
        from ralph_verify.guard.policy import Refusal

        refusal = Refusal("unparsable", f"the guard failed on this call ({type(exc).__name__}:"
                                        f" {exc})")
    if refusal is None:
        return 0
    return answer(config.root, agent, payload, refusal)


def refuse_unreadable(root: Path, agent: str, reason: str) -> int:
    """Refuse a call whose hook input cannot be read (too large, not JSON): never allow it."""
    from ralph_verify.guard.policy import Refusal

    return answer(root, agent, {}, Refusal("unparsable", reason))


def answer(root: Path, agent: str, payload: Mapping[str, Any], refusal: Any) -> int:
    """Print the deny (or ask) answer and count the refusal in ``.ralph/guard.jsonl``."""
    tool = str(payload.get("tool_name") or "")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, Mapping):
        tool_input = {}
    # Codex has no "ask": what the guard cannot read is refused there.
    decision = refusal.decision if agent.startswith("claude") else "deny"
    verb = "refused" if decision == "deny" else "asks the user about"
    reason = (f"ralph-verify guard {verb} this {tool or 'tool'} call (rule {refusal.rule}): "
              f"{refusal.reason}. Do not try to get around the guard; if the step is really "
              "needed, say so and leave it to the user.")
    session_id = payload.get("session_id")
    record_refusal(root, RefusalRecord(
        refusal.rule, refusal.reason, decision, agent,
        None if session_id is None else str(session_id), tool, _brief(tool_input)))
    emit({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                 "permissionDecision": decision,
                                 "permissionDecisionReason": reason},
          "systemMessage": f"ralph-verify guard: {verb} {tool or 'a tool call'} "
                           f"({refusal.rule})"})
    return 0


def _brief(tool_input: Mapping[str, Any]) -> dict[str, str]:
    keep = ("command", "cmd", "file_path", "notebook_path", "path", "url")
    from ralph_verify.redact import cut, redact_credentials

    # Credentials before the cut (half a token matches no pattern), on a piece well past it.
    return {key: cut(redact_credentials(str(tool_input[key])[:2000]), 500) for key in keep
            if key in tool_input}
