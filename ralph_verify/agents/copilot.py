"""``copilot``: GitHub Copilot CLI (``copilot -p``). UNTESTED: not run here, built from its docs.

Invocation: ``copilot -p PROMPT -s --no-ask-user``: ``-s`` prints only the
agent's answer, as plain text (no JSON output is documented), so the adapter
reads no tokens, cost or turns.

Permissions: ``--allow-tool=write`` by default (file edits; other tools are
denied headless unless your Copilot configuration allows them); with
``--yolo`` ``--allow-all`` (tools, paths and URLs).
``--continue-session``: ``--continue`` (the most recent session).
"""

from __future__ import annotations

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.cli import CLIAgent


class CopilotAgent(CLIAgent):
    name = "copilot"
    program = "copilot"
    install = "npm install -g @github/copilot"

    def command(self, request: AgentRequest) -> list[str]:
        argv = ["-s", "--no-ask-user"]
        argv.append("--allow-all" if self.options.bypass_permissions else "--allow-tool=write")
        if self.options.model:
            argv.append(f"--model={self.options.model}")
        if self.continuing(request):
            argv.append("--continue")
        return [*argv, *self.options.extra_args, f"--prompt={request.prompt}"]
