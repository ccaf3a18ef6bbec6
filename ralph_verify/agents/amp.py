"""``amp``: Amp, execute mode (``amp -x``). NOT TESTED OFFLINE: built from its docs.

Why not tested: Amp talks only to Amp's own service (it has no setting for a model base
URL), so it cannot run against the scripted model server, and the test suite never calls
a real model service. ``ralph-verify plugins`` and ``checks`` say so next to its name.
What it would take: an Amp setting for a custom endpoint (or a documented way to point
it at one), then the same offline loop as the other CLIs'
(``tests/e2e/test_agents_offline_e2e.py``); until then, use it knowing its JSON reader was
written from Amp's documentation, and that no loop with it was checked.

Its refusals ARE read (observed with ``@ampcode/cli`` 0.0.1790142911, offline, in a
loopback-only network namespace): with a key but no route to its service it prints
``Error: Couldn't connect to the Amp server at https://ampcode.com/.`` and exits 1, which
ends the loop ``agent-error`` at iteration 1 with that line. Without a key (no
``AMP_API_KEY``, never ``amp login``) it prints ``No API key found. Starting login flow...``
and waits for a login code even with stdin closed: that run ends at ``--agent-timeout``.

Invocation: ``amp -x PROMPT --stream-json``. Amp documents its stream JSON as
compatible with Claude Code's (``system`` init with ``session_id``,
``assistant`` messages, a final ``result`` with ``result``, ``usage``,
``num_turns``); it is read with the Claude reader and falls back to the plain
text.

Quiet: nothing is switched off. Every model call goes to Amp's own service (ampcode.com),
and no switch of Amp's for other calls home is known to this adapter.

Permissions: Amp's own settings by default; with ``--yolo``
``--dangerously-allow-all``. ``--continue-session``: ``amp threads continue
[ID]``. Amp picks its model itself (``--agent-arg=--mode=...``), so ``--model``
is refused.
"""

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
