"""``claude``: Claude Code, headless (``claude -p``); its page: scripts/agent_docs/claude.rst."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.cli import CLIAgent, Parsed, add, as_dict, integer, is_root, number
from ralph_verify.agents.vetting import Refusal, Refused, json_lines, since

#: Claude Code's own switches: no telemetry, auto-updater, error reports or other traffic
#: but the model's (the user's environment wins).
QUIET_ENV = {"DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
             "DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}


REFUSALS = (
    Refusal(r"Not logged in · Please run /login|Invalid API key · ",
            "set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for your own endpoint), or log in "
            "with 'claude' and /login", error_only=True),
)


#: The fix for a write Claude Code's safety check refused (``reasonCode`` ``safetyCheck``:
#: "... which is a sensitive file", its own settings files). Measured with 2.1.330: refused in
#: every permission mode but bypassPermissions, allow rules (settings or --allowedTools) or not.
PROTECTED_FIX = ("Claude Code protects this file (its own settings, .git, .vscode, .idea, shell "
                 "profiles, .envrc, .mcp.json and the like) in every permission mode but "
                 "bypassPermissions, allow rules or not: make this change yourself, or let Claude "
                 "Code make it with 'run --yolo' (in hook mode: start it with --permission-mode "
                 "bypassPermissions)")


def claude_refusal(messages: Iterable[dict[str, Any]], start: float = 0.0) -> Refused | None:
    """The first tool result since ``start`` that Claude Code's permission mode refused (its
    transcript's ``permissionDecision``, stream-json's ``tool_result_meta``: ``reject`` by
    ``config``, not by a hook such as the guard), as the model read it; with
    :data:`PROTECTED_FIX` when its safety check refused it (the transcript's ``reasonCode``,
    stream-json's ``permission_denied`` event before the result)."""
    safety: set[object] = set()
    for message in messages:
        if message.get("subtype") == "permission_denied" and \
                message.get("decision_reason_type") == "safetyCheck":
            safety.add(message.get("tool_use_id"))
        if not since(message, start):
            continue
        decisions = [as_dict(d) for d in (message.get("permissionDecision"),
                     *(as_dict(meta).get("permission_decision")
                       for meta in message.get("tool_result_meta") or []))]
        rejected = [d for d in decisions
                    if d.get("decision") == "reject" and d.get("source") == "config"]
        if not rejected:
            continue
        said: str = "a tool call was refused"
        protected = any(d.get("reasonCode") == "safetyCheck" for d in rejected)
        for block in map(as_dict, as_dict(message.get("message")).get("content") or []):
            if block.get("type") == "tool_result" and isinstance(block.get("content"), str):
                said = block["content"]
                protected = protected or block.get("tool_use_id") in safety
                break
        return Refused(said, PROTECTED_FIX if protected else None)
    return None


class ClaudeAgent(CLIAgent):
    name = "claude"
    program = "claude"
    install = "npm install -g @anthropic-ai/claude-code"
    tested_versions = ("2.1.330", "2.2.0")
    refusals = REFUSALS
    refusals_in = "output"
    quiet_env = QUIET_ENV
    prompt_via = "stdin"
    write_fix = ("ralph-verify run gives Claude Code --permission-mode acceptEdits: drop the "
                 "--agent-arg that overrides it, or allow Edit and Write in "
                 ".claude/settings.json")

    def command(self, request: AgentRequest) -> list[str]:
        argv = ["-p", "--output-format", "stream-json", "--verbose"]
        if self.options.bypass_permissions:
            argv.append("--dangerously-skip-permissions")
        else:
            argv += ["--permission-mode", "acceptEdits"]
        if self.options.model:
            argv += ["--model", self.options.model]
        if request.budget_usd is not None:
            # The CLI stops itself once this run has spent what the session has left.
            argv += ["--max-budget-usd", f"{max(request.budget_usd, 0.01):.2f}"]
        if self.continuing(request):
            argv += ["--resume", self.session_id] if self.session_id else ["--continue"]
        if self.options.guard_command:
            from ralph_verify.guard.agent_hooks import guard_settings_json

            argv += ["--settings", guard_settings_json(self.options.guard_command)]
        return [*argv, *self.options.extra_args]

    def environment(self, request: AgentRequest) -> dict[str, str]:
        if self.options.bypass_permissions and is_root():
            return {"IS_SANDBOX": "1"}
        return {}

    def notes(self, request: AgentRequest) -> list[str]:
        if self.environment(request):
            return ["running as root with --yolo: IS_SANDBOX=1 is set, without which Claude "
                    "Code refuses --dangerously-skip-permissions as root"]
        return []

    def parse(self, lines: Iterable[str]) -> Parsed:
        return parse_claude_messages(json_lines(lines))


def parse_claude_messages(messages: Iterable[dict[str, Any]]) -> Parsed:
    """Read Claude Code's stream-json / json messages (also Qwen Code's and Amp's)."""
    parsed = Parsed()
    texts: list[str] = []
    result: dict[str, Any] | None = None
    for message in messages:
        kind = message.get("type")
        if kind in ("system", "assistant", "user", "result"):
            parsed.structured = True
        if isinstance(message.get("session_id"), str):
            parsed.session_id = message["session_id"]
        if kind == "assistant":
            content = (message.get("message") or {}).get("content") or []
            texts.extend(block["text"] for block in content if isinstance(block, dict)
                         and block.get("type") == "text" and isinstance(block.get("text"), str)
                         and block["text"].strip())
        elif kind == "result":
            result = message
    if result is not None:
        usage = as_dict(result.get("usage"))
        tokens_in = add(None, usage.get("input_tokens"))
        if tokens_in is not None:
            tokens_in = add(add(tokens_in, usage.get("cache_creation_input_tokens")),
                            usage.get("cache_read_input_tokens"))
        parsed.input_tokens = tokens_in
        parsed.output_tokens = add(None, usage.get("output_tokens"))
        parsed.cost_usd = number(result.get("total_cost_usd"))
        parsed.turns = integer(result.get("num_turns"))
        final = result.get("result")
        if result.get("is_error"):
            parsed.error = final if isinstance(final, str) and final else str(
                result.get("subtype") or "error")
            parsed.status = integer(result.get("api_error_status"))
        elif isinstance(final, str) and final.strip() and (not texts or texts[-1] != final):
            texts.append(final)
    parsed.text = "\n\n".join(texts)
    return parsed
