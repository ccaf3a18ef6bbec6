"""The agent's own hooks: ralph-verify run *by* Claude Code or Codex, not running them.

- :mod:`~ralph_verify.hookmode.protocol`: JSON in, one JSON answer out, ``.ralph/hook.log``,
  and the fail-open answer (an agent hook never blocks its agent by accident);
- :mod:`~ralph_verify.hookmode.session`: ``start``, and hook mode's state between stops;
- :mod:`~ralph_verify.hookmode.stop`: the Stop hook, one iteration of the loop per stop;
- :mod:`~ralph_verify.hookmode.binding`: which agent session drives the loop, kept outside
  the project (its id, transcript and processes);
- :mod:`~ralph_verify.hookmode.pretool`: the PreToolUse guard;
- :mod:`~ralph_verify.hookmode.install`: ``init claude`` / ``init codex``;
- :mod:`~ralph_verify.hookmode.slash`: the Claude Code plugin's ``/ralph-verify``.

"Hook" without "agent" means a pluggy hook (:mod:`ralph_verify.hookspec`).

Floor 7: imports loop, checks, agents, guard, config, project and the leaves; imported by
the plugins that declare the ``hook`` and ``start`` commands.
"""
