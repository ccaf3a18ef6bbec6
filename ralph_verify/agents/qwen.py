"""``qwen``: Qwen Code, headless (``qwen -p``). UNTESTED: not run here, built from its docs.

Invocation: ``qwen -p PROMPT --output-format json``. Per its headless
documentation the output is a JSON array of messages shaped like Claude
Code's (``system``, ``assistant``, and a final ``result`` with ``result``,
``session_id``, ``usage``, ``num_turns``); it is read with the Claude reader,
and falls back to the plain text when it is not there.

Permissions: ``--approval-mode auto-edit`` by default; with ``--yolo``
``--yolo``. ``--continue-session``: ``--resume ID`` (``--continue`` when the id
is unknown).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.claude import parse_claude_messages
from ralph_verify.agents.cli import CLIAgent, Parsed, json_lines, tail_text


class QwenAgent(CLIAgent):
    name = "qwen"
    program = "qwen"
    install = "npm install -g @qwen-code/qwen-code"

    def command(self, request: AgentRequest) -> list[str]:
        argv = ["--output-format", "json"]
        argv += ["--yolo"] if self.options.bypass_permissions else ["--approval-mode", "auto-edit"]
        if self.options.model:
            argv += ["--model", self.options.model]
        if self.continuing(request):
            argv += ["--resume", self.session_id] if self.session_id else ["--continue"]
        return [*argv, *self.options.extra_args, f"--prompt={request.prompt}"]

    def parse(self, lines: Iterable[str]) -> Parsed:
        return parse_qwen_json(lines)


def parse_qwen_json(lines: Iterable[str]) -> Parsed:
    """A JSON array of messages; JSON lines (``stream-json``) are read too."""
    text = tail_text(lines)
    start = text.find("[")
    if start != -1:
        try:
            messages, _ = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            messages = None
        if isinstance(messages, list):
            return parse_claude_messages(m for m in messages if isinstance(m, dict))
    return parse_claude_messages(json_lines(text.splitlines()))
