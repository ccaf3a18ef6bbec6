"""``copilot``: GitHub Copilot CLI, headless (``copilot -p``).
Its page: scripts/agent_docs/copilot.rst (docs/agents/copilot.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ralph_verify.agents import AgentRequest, AgentResult
from ralph_verify.agents.cli import CLIAgent, Parsed, add, as_dict, integer, session_file
from ralph_verify.agents.vetting import Refusal, Refused, json_lines, since

REFUSALS = (
    Refusal(r"No authentication information found",
            "log in (copilot, then /login), set COPILOT_GITHUB_TOKEN, or use your own model "
            "with COPILOT_PROVIDER_BASE_URL and COPILOT_MODEL"),
    Refusal(r"Model '[^']*' not found",
            "name a model your provider serves with --model (or COPILOT_MODEL)"),
)

#: Copilot's tools that edit files (allowed by ``--allow-tool=write``, the driver's fix).
WRITE_TOOLS = ("edit", "create")


def copilot_refusal(events: Iterable[dict[str, Any]], start: float = 0.0) -> Refused | None:
    """The first tool call since ``start`` that Copilot denied (``error.code`` ``denied``)."""
    tools: dict[Any, str] = {}
    for event in events:
        data = as_dict(event.get("data"))
        if event.get("type") == "tool.execution_start":
            tools[data.get("toolCallId")] = str(data.get("toolName"))
        error = as_dict(data.get("error"))
        if event.get("type") == "tool.execution_complete" and error.get("code") == "denied" \
                and since(event, start):
            tool = tools.get(data.get("toolCallId"), "")
            kind = {"bash": "shell", "powershell": "shell", "web_fetch": "url"}.get(tool, tool)
            return Refused(str(error.get("message") or "a tool call was denied"),
                           None if tool in WRITE_TOOLS else
                           f"Copilot CLI denies {tool!r} headless unless allowed: add "
                           f"--allow-tool={kind} ('ralph-verify run': --agent-arg="
                           f"--allow-tool={kind}, or --yolo for every tool)")
    return None


def parse_copilot_events(lines: Iterable[str]) -> Parsed:
    """Read ``copilot --output-format json`` events."""
    parsed = Parsed()
    texts: list[str] = []
    for event in json_lines(lines):
        kind = event.get("type")
        if not isinstance(kind, str):
            continue
        data = as_dict(event.get("data"))
        parsed.structured = True
        if kind == "assistant.message" and isinstance(data.get("content"), str):
            if data["content"].strip():
                texts.append(data["content"])
        elif kind == "model.call_start":
            parsed.turns = add(parsed.turns, 1)
        elif kind == "assistant.usage":
            parsed.input_tokens = add(parsed.input_tokens, data.get("inputTokens"))
            parsed.output_tokens = add(parsed.output_tokens, data.get("outputTokens"))
        elif kind == "session.error" and data.get("message"):
            parsed.error = str(data["message"])
            parsed.status = integer(data.get("statusCode"))
        elif kind == "result" and isinstance(event.get("sessionId"), str):
            parsed.session_id = event["sessionId"]
    parsed.text = "\n\n".join(texts)
    return parsed


class CopilotAgent(CLIAgent):
    name = "copilot"
    program = "copilot"
    install = "npm install -g @github/copilot"
    tested_versions = ("1.0.102", "1.1.0")
    refusals = REFUSALS
    refusals_in = "output"
    write_fix = ("ralph-verify run gives Copilot CLI --allow-tool=write: drop the --agent-arg "
                 "that denies it")
    parse = staticmethod(parse_copilot_events)

    def quiet_environment(self, request: AgentRequest) -> dict[str, str]:
        env = {"COPILOT_AUTO_UPDATE": "false"}
        if {**os.environ, **request.env}.get("COPILOT_PROVIDER_BASE_URL"):
            env["COPILOT_OFFLINE"] = "true"
        return env

    def environment(self, request: AgentRequest) -> dict[str, str]:
        # Exactly "true" also trusts the folder, which --trust-folder cannot on a resume.
        if self.options.bypass_permissions and self.continuing(request):
            return {"COPILOT_ALLOW_ALL": "true"}
        return {}

    def command(self, request: AgentRequest) -> list[str]:
        continuing = self.continuing(request)
        # A new session trusts the project (its hooks, MCP servers, settings); Copilot takes
        # --trust-folder only for a new session.
        argv = [] if continuing else ["--trust-folder"]
        argv += ["--output-format", "json", "--no-ask-user", "--no-auto-update",
                 "--disable-client-telemetry"]
        argv.append("--allow-all" if self.options.bypass_permissions else "--allow-tool=write")
        if self.options.model:
            argv.append(f"--model={self.options.model}")
        if continuing:
            argv.append(f"--resume={self.session_id}" if self.session_id else "--continue")
        argv.append(f"--usage-output-file={usage_file(request)}")
        return [*argv, *self.options.extra_args, f"--prompt={request.prompt}"]

    def run(self, request: AgentRequest) -> AgentResult:
        path = usage_file(request)
        path.unlink(missing_ok=True)
        result = super().run(request)
        tokens = read_usage(path)
        if result.input_tokens is None and tokens is not None:
            result.input_tokens, result.output_tokens = tokens
        return result


def usage_file(request: AgentRequest) -> Path:
    return session_file(request, "copilot-usage.json")


def read_usage(path: Path) -> tuple[int, int] | None:
    """Input and output tokens of every model in Copilot's usage file, or None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    tokens_in = tokens_out = None
    for model in as_dict(as_dict(data).get("modelMetrics")).values():
        usage = as_dict(as_dict(model).get("usage"))
        tokens_in = add(tokens_in, usage.get("inputTokens"))
        tokens_out = add(tokens_out, usage.get("outputTokens"))
    if tokens_in is None and tokens_out is None:
        return None
    return tokens_in or 0, tokens_out or 0
