"""``codex``: OpenAI Codex CLI, headless (``codex exec``).
Its page: scripts/agent_docs/codex.rst (docs/agents/codex.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.cli import CLIAgent, Parsed, add, as_dict
from ralph_verify.agents.vetting import Refusal, Refused, json_lines, since

#: Codex config keys set false for each run: no update check, no analytics, and no
#: plugin or app lists fetched from OpenAI's service (Codex fetches them on every start).
QUIET_CONFIG = ("check_for_update_on_startup", "analytics.enabled", "features.plugins",
                "features.remote_plugin", "features.apps")


REFUSALS = (
    Refusal(r"\bbwrap: ",
            "Codex's sandbox (bubblewrap) cannot start here: run Codex where bubblewrap works, "
            "take bwrap off Codex's PATH (Codex then uses its own sandbox), keep CODEX_HOME "
            "out of /tmp, or use --yolo inside 'ralph-verify run --sandbox'"),
)


#: What a write refused by Codex's read-only sandbox prints (a shell's, apply_patch's).
READ_ONLY = re.compile(r"^.*(?:Read-only file system|read-only sandbox).*$", re.MULTILINE)


def codex_refusal(events: Iterable[dict[str, Any]], start: float = 0.0) -> Refused | None:
    """The first tool output since ``start`` of a turn Codex ran in its ``read-only`` sandbox
    that says a write failed for it (the session file records each turn's ``sandbox_policy``;
    a Stop hook's block continues the turn)."""
    read_only = False
    for event in events:
        payload = as_dict(event.get("payload"))
        if event.get("type") == "turn_context":
            read_only = as_dict(payload.get("sandbox_policy")).get("type") == "read-only"
        elif read_only and str(payload.get("type", "")).endswith("call_output") and \
                since(event, start):
            match = READ_ONLY.search(_text(payload.get("output")))
            if match:
                return Refused(match.group(0).strip())
    return None


def parse_codex_events(lines: Iterable[str]) -> Parsed:
    """Read ``codex exec --json`` events."""
    parsed = Parsed()
    texts: list[str] = []
    turns = 0
    errors: list[str] = []
    for event in json_lines(lines):
        kind = event.get("type")
        parsed.structured = True
        if kind == "thread.started" and isinstance(event.get("thread_id"), str):
            parsed.session_id = event["thread_id"]
        elif kind == "item.completed":
            item = as_dict(event.get("item"))
            if item.get("type") == "agent_message" and isinstance(item.get("text"), str):
                texts.append(item["text"])
        elif kind == "turn.completed":
            turns += 1
            usage = as_dict(event.get("usage"))
            parsed.input_tokens = add(parsed.input_tokens, usage.get("input_tokens"))
            parsed.output_tokens = add(parsed.output_tokens, usage.get("output_tokens"))
        elif kind in ("turn.failed", "error"):
            error = as_dict(event.get("error")) or event
            errors.append(_message(error.get("message")) or str(kind))
    parsed.text = "\n\n".join(texts)
    parsed.turns = turns or None
    if errors:
        parsed.error = errors[-1]
    return parsed


class CodexAgent(CLIAgent):
    name = "codex"
    program = "codex"
    install = "npm install -g @openai/codex"
    tested_versions = ("0.169.0", "0.170.0")
    refusals = REFUSALS
    prompt_via = "stdin"
    write_fix = ("ralph-verify run gives Codex its workspace-write sandbox: drop the "
                 "--agent-arg that makes it read-only, or use --yolo inside 'run --sandbox'")
    parse = staticmethod(parse_codex_events)
    transcripts = (("CODEX_HOME",), ".codex", "sessions/*/*/*/rollout-*-{id}.jsonl")

    def command(self, request: AgentRequest) -> list[str]:
        argv = ["exec"]
        if self.continuing(request):
            argv += ["resume", self.session_id] if self.session_id else ["resume", "--last"]
        argv += ["--json", "--skip-git-repo-check"]
        if self.options.bypass_permissions:
            argv.append("--dangerously-bypass-approvals-and-sandbox")
        else:
            # ``exec resume`` has no --sandbox; the config key works for both.
            argv += ["-c", 'sandbox_mode="workspace-write"']
        for key in QUIET_CONFIG:
            argv += ["-c", f"{key}=false"]
        if self.options.model:
            argv += ["--model", self.options.model]
        if self.options.guard_command:
            from ralph_verify.guard.agent_hooks import codex_guard_config

            argv += codex_guard_config(self.options.guard_command)
        return [*argv, *self.options.extra_args, "-"]

    def tool_output(self, env: Mapping[str, str], parsed: Parsed) -> str:
        """The commands' outputs of this thread, from its session file: ``exec --json`` does
        not always report a command whose sandbox failed, the session file does."""
        path = self.transcript(env, parsed)
        if path is None:
            return "\n"
        try:
            with path.open(encoding="utf-8", errors="replace") as handle:
                payloads = (as_dict(event.get("payload")) for event in json_lines(handle))
                outputs = [_text(item.get("output"))[:4000] for item in payloads
                           if item.get("type") == "function_call_output"]
        except OSError:
            return ""
        return "\n" + "\n".join(outputs[-20:])


def _text(output: Any) -> str:
    return output if isinstance(output, str) else json.dumps(output)


def _message(value: Any) -> str:
    """An error message; Codex passes the API's error body through as a JSON string."""
    if not isinstance(value, str):
        return ""
    try:
        body = json.loads(value)
    except ValueError:
        return value
    inner = as_dict(as_dict(body).get("error")).get("message")
    return inner if isinstance(inner, str) and inner else value
