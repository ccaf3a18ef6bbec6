"""``gemini``: Gemini CLI, headless (``gemini -p``). UNTESTED: not run here, built from its docs.

Invocation: ``gemini -p PROMPT --output-format json``. Per its headless
documentation the JSON object has ``response`` (final text), ``stats``
(``stats.models.NAME.tokens.prompt`` / ``candidates``,
``stats.models.NAME.api.totalRequests``), ``session_id`` in recent versions,
and ``error`` on failure. Gemini reports no cost. When the output is not that
JSON the adapter falls back to the plain text.

Permissions: ``--approval-mode auto_edit`` by default (edits accepted); with
``--yolo`` ``--yolo``. ``--continue-session``: ``--resume ID`` (``latest``
when the id is unknown).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.cli import CLIAgent, Parsed, add, as_dict, tail_text


class GeminiAgent(CLIAgent):
    name = "gemini"
    program = "gemini"
    install = "npm install -g @google/gemini-cli"

    def command(self, request: AgentRequest) -> list[str]:
        argv = ["--output-format", "json"]
        argv += ["--yolo"] if self.options.bypass_permissions else ["--approval-mode", "auto_edit"]
        if self.options.model:
            argv += ["--model", self.options.model]
        if self.continuing(request):
            argv += ["--resume", self.session_id or "latest"]
        return [*argv, *self.options.extra_args, f"--prompt={request.prompt}"]

    def parse(self, lines: Iterable[str]) -> Parsed:
        return parse_gemini_json(lines)


def last_json_object(lines: Iterable[str]) -> dict[str, Any] | None:
    """The last top-level JSON object in the output (pretty-printed or not), or None."""
    text = tail_text(lines)
    decoder = json.JSONDecoder()
    found: dict[str, Any] | None = None
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            found = value
        start = text.find("{", end)
    return found


def parse_gemini_json(lines: Iterable[str]) -> Parsed:
    parsed = Parsed()
    data = last_json_object(lines)
    if data is None:
        return parsed
    parsed.structured = "response" in data or "stats" in data or "error" in data
    if isinstance(data.get("response"), str):
        parsed.text = data["response"]
    if isinstance(data.get("session_id"), str):
        parsed.session_id = data["session_id"]
    for model in as_dict(as_dict(data.get("stats")).get("models")).values():
        if not isinstance(model, dict):
            continue
        tokens = as_dict(model.get("tokens"))
        parsed.input_tokens = add(parsed.input_tokens, tokens.get("prompt"))
        parsed.output_tokens = add(parsed.output_tokens, tokens.get("candidates"))
        api = as_dict(model.get("api"))
        parsed.turns = add(parsed.turns, api.get("totalRequests"))
    error = data.get("error")
    if isinstance(error, dict) and error.get("message"):
        parsed.error = str(error["message"])
    return parsed
