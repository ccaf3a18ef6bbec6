"""``qwen``: Qwen Code, headless; its page: scripts/agent_docs/qwen.rst."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.claude import parse_claude_messages
from ralph_verify.agents.cli import CLIAgent, Parsed, as_dict, settings_file, tail_text
from ralph_verify.agents.vetting import Refusal, Refused, json_lines, shell_fix, since

QUIET_SETTINGS: dict[str, Any] = {
    "general": {"enableAutoUpdate": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
}

REFUSALS = (
    Refusal(r"No auth type is selected",
            "set OPENAI_API_KEY, OPENAI_BASE_URL and security.auth.selectedType \"openai\" in "
            "~/.qwen/settings.json (or pass --agent-arg=--auth-type=openai)"),
    Refusal(r"The model `[^`]+` does not exist|model_not_found",
            "name a model your endpoint serves with --model"),
)


def qwen_refusal(entries: Iterable[dict[str, Any]], start: float = 0.0) -> Refused | None:
    """The first tool result since ``start`` that Qwen's approval mode declined."""
    for entry in entries:
        result = as_dict(entry.get("toolCallResult"))
        if result.get("errorType") != "execution_denied" or not since(entry, start):
            continue
        names = {as_dict(part.get("functionResponse")).get("name")
                 for part in map(as_dict, as_dict(entry.get("message")).get("parts") or [])}
        return Refused(str(result.get("resultDisplay") or "a tool call was declined"),
                       shell_fix("Qwen Code", "qwen") if "run_shell_command" in names else None)
    return None


def parse_qwen_json(lines: Iterable[str]) -> Parsed:
    """A JSON array of messages; JSON lines (``stream-json``) are read too."""
    text = tail_text(lines)
    messages: list[dict[str, Any]] | None = None
    start = text.find("[")
    if start != -1:
        try:
            value, _ = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, list):
            messages = [m for m in value if isinstance(m, dict)]
    if messages is None:
        messages = list(json_lines(text.splitlines()))
    parsed = parse_claude_messages(messages)
    for message in messages:
        error = as_dict(message.get("error")).get("message")
        if message.get("type") == "result" and message.get("is_error") and error:
            parsed.error = str(error)
    return parsed


class QwenAgent(CLIAgent):
    name = "qwen"
    program = "qwen"
    install = "npm install -g @qwen-code/qwen-code"
    tested_versions = ("0.24.4", "0.25.0")
    refusals = REFUSALS
    prompt_via = "stdin"
    write_fix = ("ralph-verify run gives Qwen Code --approval-mode auto-edit: drop the "
                 "--agent-arg that overrides it")
    parse = staticmethod(parse_qwen_json)
    transcripts = (("QWEN_RUNTIME_DIR", "QWEN_HOME"), ".qwen", "projects/*/chats/{id}.jsonl")

    def quiet_environment(self, request: AgentRequest) -> dict[str, str]:
        return {"QWEN_USAGE_STATISTICS_ENABLED": "false", "QWEN_TELEMETRY_ENABLED": "false",
                "QWEN_CODE_SYSTEM_DEFAULTS_PATH": settings_file(
                    request, "qwen-defaults.json", QUIET_SETTINGS)}

    def command(self, request: AgentRequest) -> list[str]:
        argv = ["--output-format", "json"]
        argv += ["--yolo"] if self.options.bypass_permissions else ["--approval-mode", "auto-edit"]
        if self.options.model:
            argv += ["--model", self.options.model]
        if self.continuing(request):
            argv += ["--resume", self.session_id] if self.session_id else ["--continue"]
        return [*argv, *self.options.extra_args]
