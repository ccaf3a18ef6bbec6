"""``amp``: Amp, execute mode (``amp -x``). NOT TESTED OFFLINE: built from its docs.
Its page: scripts/agent_docs/amp.rst (docs/agents/amp.md)."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.claude import parse_claude_messages
from ralph_verify.agents.cli import CLIAgent, Parsed
from ralph_verify.agents.vetting import Refusal, json_lines
from ralph_verify.errors import UsageError


class AmpAgent(CLIAgent):
    name = "amp"
    program = "amp"
    install = "npm install -g @ampcode/cli"
    refusals = (
        Refusal(r"Couldn't connect to the Amp server",
                "Amp works only through its own service (ampcode.com): run it where that is "
                "reachable; ralph-verify cannot point it at another model server"),
        Refusal(r"No API key found",
                "set AMP_API_KEY or run `amp login` once, then run again"),
    )

    def preflight(self) -> str | None:
        print("NOTE: the amp adapter is not tested offline (Amp talks only to its own "
              "service); see docs/agents/amp.md", file=sys.stderr)
        return super().preflight()

    def check_options(self) -> None:
        if self.options.model:
            raise UsageError("--agent amp has no model option: Amp chooses its model by mode "
                             "(--agent-arg=--mode=rush, for example); drop --model")

    def command(self, request: AgentRequest) -> list[str]:
        argv: list[str] = []
        if self.continuing(request):
            argv += ["threads", "continue", *([self.session_id] if self.session_id else [])]
        argv += ["--stream-json"]
        if self.options.bypass_permissions:
            argv.append("--dangerously-allow-all")
        return [*argv, *self.options.extra_args, "-x", request.prompt]

    def parse(self, lines: Iterable[str]) -> Parsed:
        return parse_claude_messages(json_lines(lines))
