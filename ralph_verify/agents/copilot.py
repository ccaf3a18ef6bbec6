"""``copilot``: GitHub Copilot CLI, headless (``copilot -p``). Tested offline with version 1.0.102.

Invocation: ``copilot --trust-folder --output-format json --no-ask-user --prompt=PROMPT``.
The output
is one JSON event per line: ``assistant.message`` (``data.content``: the agent's text),
``model.call_start`` (one per model call: the turns), ``assistant.usage`` (tokens, when
the provider reports them), ``session.error`` (``data.message``) and a final ``result``
with the ``sessionId`` and ``exitCode``. Copilot reports premium requests, not a cost.

Folder trust: headless Copilot does not refuse a folder it does not trust; it runs and
silently leaves out the project's own Copilot configuration (hooks in ``.github/hooks``,
workspace MCP servers, plugins, skills, ``.github/copilot/settings.json``'s model pin and
deny lists), which an interactive session in the same folder would load once trusted.
``--trust-folder`` trusts the project for this one new session (nothing saved). Copilot
refuses it with ``--resume`` ("cannot be used with '--resume'"): a resumed session
(``--continue-session``, iteration 2 on) gets ``COPILOT_ALLOW_ALL=true`` with ``--yolo``
(all tools allowed, as ``--allow-all``, and the folder trusted); without ``--yolo`` only a
folder the user trusted in Copilot (``trustedFolders``) loads its configuration there.

Tokens: ``--usage-output-file .ralph/agent/copilot-usage.json`` (rewritten each run):
``modelMetrics.MODEL.usage.inputTokens`` / ``outputTokens``, read after the run (the
JSON events carry none when the model is the user's own).

Quiet: ``--no-auto-update --disable-client-telemetry`` on every command line (the hook-mode
line too: Copilot has no setting for them), ``COPILOT_AUTO_UPDATE=false``, and with the
user's own model (``COPILOT_PROVIDER_BASE_URL``) ``COPILOT_OFFLINE=true``. Measured with
1.0.102 and the user's own model: 4 to 6 outbound attempts per two-iteration loop without
``--disable-client-telemetry``, none with it.

Set-up: ``npm install -g @github/copilot@1.0.102``. Your own model (OpenAI-compatible):
``COPILOT_PROVIDER_BASE_URL=http://HOST:PORT/v1``, ``COPILOT_PROVIDER_API_KEY`` and
``COPILOT_MODEL`` (or ``--model``); no GitHub login is needed then. GitHub's service: log in
(``copilot``, then ``/login``) or set ``COPILOT_GITHUB_TOKEN``; without either Copilot
refuses ("No authentication information found"): an ``agent-error`` with that fix.

Permissions: ``--allow-tool=write`` by default (file edits; other tools are denied
headless unless the user's Copilot configuration allows them); with ``--yolo``
``--allow-all``. ``--continue-session``: ``--resume=SESSION_ID`` from the last run's
``result`` (``--continue``, the most recent session, only when the id is unknown: with
two loops side by side that may be the other loop's).

Hook mode (tested offline with 1.0.102): Copilot's Stop hook is ``agentStop``, read from
``.github/hooks/*.json`` (``{"version": 1, "hooks": {"agentStop": [{"type": "command",
"bash": CMD, "timeoutSec": N}]}}``) in a folder Copilot trusts: ``copilot -p`` loads them
with ``--trust-folder`` (or a folder trusted interactively). ``ralph-verify init copilot``
writes ``.github/hooks/ralph-verify.json`` (merged, ``.ralph/`` added to ``.gitignore``);
``ralph-verify start --agent-name copilot --until ...`` records the loop. The hook's input
has ``sessionId``, ``transcriptPath`` and ``stop_hook_active`` but not the final text:
``hook copilot-stop`` reads it from the transcript (``events.jsonl``: the
``assistant.message`` events after the last ``user.message``) for the promise protocol.
``{"decision": "block", "reason": R}`` keeps Copilot going with R as the next user
message. Copilot honours 8 blocked stops in a row per prompt, tool calls between them or
not (measured: a hook that always blocks is called 9 times), and no setting raises it: the
9th block is ignored and the turn ends; that block says so, and ``status --watch`` shows
that the loop waits for a new message. One ``copilot -p`` gives at most 9 iterations. No
PreToolUse guard.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from ralph_verify.agents import AgentRequest, AgentResult
from ralph_verify.agents.cli import CLIAgent, Parsed, add, as_dict, session_file
from ralph_verify.agents.vetting import Refusal, json_lines

REFUSALS = (
    Refusal(r"No authentication information found",
            "log in (copilot, then /login), set COPILOT_GITHUB_TOKEN, or use your own model "
            "with COPILOT_PROVIDER_BASE_URL and COPILOT_MODEL"),
    Refusal(r"Model '[^']*' not found",
            "name a model your provider serves with --model (or COPILOT_MODEL)"),
)


class CopilotAgent(CLIAgent):
    name = "copilot"
    program = "copilot"
    install = "npm install -g @github/copilot"
    tested_versions = ("1.0.102", "1.1.0")
    refusals = REFUSALS

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

    def parse(self, lines: Iterable[str]) -> Parsed:
        return parse_copilot_events(lines)

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
            status = data.get("statusCode")
            if isinstance(status, int) and not isinstance(status, bool):
                parsed.status = status
        elif kind == "result" and isinstance(event.get("sessionId"), str):
            parsed.session_id = event["sessionId"]
    parsed.text = "\n\n".join(texts)
    return parsed
