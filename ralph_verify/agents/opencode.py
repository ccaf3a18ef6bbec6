"""``opencode``: OpenCode, headless (``opencode run``).
Its page: scripts/agent_docs/opencode.rst (docs/agents/opencode.md)."""

from __future__ import annotations

from collections.abc import Iterable

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.cli import CLIAgent, Parsed, add, as_dict, number
from ralph_verify.agents.vetting import Refusal, json_lines

QUIET_ENV = {name: "1" for name in (
    "OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_LSP_DOWNLOAD",
    "OPENCODE_DISABLE_SHARE", "OPENCODE_DISABLE_DEFAULT_PLUGINS")}

REFUSALS = (
    Refusal(r"ProviderModelNotFoundError|\bModel not found\b",
            "name a model of a configured provider with --model provider/model (a provider "
            "block in opencode.json gives your own endpoint)"),
    Refusal(r"ProviderInitError|API key is missing",
            "configure a provider in opencode.json (or `opencode auth login`)"),
    # No provider configured: OpenCode falls back to its own service and, offline, cannot
    # reach it (after about 80 s). The user's own endpoint failing is an outage instead.
    Refusal(r"Cannot connect to API.*opencode\.ai/zen",
            "no model provider is configured, so OpenCode tried its own service: add a "
            "provider block for your endpoint to opencode.json and pass --model provider/model"),
)


def parse_opencode_events(lines: Iterable[str]) -> Parsed:
    parsed = Parsed()
    texts: list[str] = []
    for event in json_lines(lines):
        if isinstance(event.get("sessionID"), str):
            parsed.session_id = event["sessionID"]
        part = as_dict(event.get("part"))
        kind = event.get("type")
        if kind in ("text", "step_start", "step_finish", "tool_use", "error"):
            parsed.structured = True
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "step_finish":
            parsed.turns = add(parsed.turns, 1)
            tokens = as_dict(part.get("tokens"))
            parsed.input_tokens = add(parsed.input_tokens, tokens.get("input"))
            parsed.output_tokens = add(parsed.output_tokens, tokens.get("output"))
            cost = number(part.get("cost"))
            if cost is not None:
                parsed.cost_usd = (parsed.cost_usd or 0.0) + cost
        elif kind == "error":
            error = as_dict(event.get("error")) or part
            message = as_dict(error.get("data")).get("message") or error.get("message")
            parsed.error = str(message or error.get("name") or kind)
    parsed.text = "\n\n".join(texts)
    return parsed


class OpenCodeAgent(CLIAgent):
    name = "opencode"
    program = "opencode"
    install = "npm install -g opencode-ai"
    tested_versions = ("1.18.33", "1.19.0")
    refusals = REFUSALS
    quiet_env = QUIET_ENV
    parse = staticmethod(parse_opencode_events)

    def command(self, request: AgentRequest) -> list[str]:
        argv = ["run", "--format", "json", "--title", f"ralph-verify {request.iteration}"]
        if self.options.bypass_permissions:
            argv.append("--auto")
        if self.options.model:
            argv += ["--model", self.options.model]
        if self.continuing(request):
            argv += ["--session", self.session_id] if self.session_id else ["--continue"]
        return [*argv, *self.options.extra_args, "--", request.prompt]
