"""The agent's own hooks: ralph-verify run *by* an agent CLI (Stop, PreToolUse, ``start``,
``init claude/codex``, ``/ralph-verify``), not running it. "Hook" without "agent" means a
pluggy hook (:mod:`ralph_verify.hookspec`)."""
