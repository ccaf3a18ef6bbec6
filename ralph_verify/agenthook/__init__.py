"""The agent's own hooks: ralph-verify run *by* Claude Code or Codex, not running them.

- :mod:`~ralph_verify.agenthook.protocol`: JSON in, one JSON answer out, ``.ralph/hook.log``,
  and the fail-open answer (an agent hook never blocks its agent by accident);
- :mod:`~ralph_verify.agenthook.session`: ``start``, and hook mode's state between stops;
- :mod:`~ralph_verify.agenthook.stop`: the Stop hook, one iteration of the loop per stop;
- :mod:`~ralph_verify.agenthook.pretool`: the PreToolUse guard;
- :mod:`~ralph_verify.agenthook.install`: ``init claude`` / ``init codex``;
- :mod:`~ralph_verify.agenthook.slash`: the Claude Code plugin's ``/ralph-verify``.

"Hook" without "agent" means a pluggy hook (:mod:`ralph_verify.hookspec`).
"""
