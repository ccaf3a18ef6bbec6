"""Every hook ralph-verify calls, documented, one module per phase.

Plugins implement these with ``@ralph_verify.hookimpl``. Hook names start with
``ralph_``; a plugin that implements an unknown ``ralph_`` hook is refused at
start-up with its name and the hook's. Arguments are passed by name, so an
implementation may accept only the ones it needs. Every class a hook receives or
returns is importable from ``ralph_verify`` itself.

The hooks of a loop session fire in this order, for both drivers (``run``, and the
agent's Stop hook in hook mode, which runs one iteration per stop)::

    ralph_session_prepare -> (baseline verification) -> ralph_session_start
    ralph_runloop
        per iteration: ralph_run_iteration -> ralph_iteration_start
            -> ralph_prompt_notes (run: here; hook mode: when the last stop was blocked)
            -> ralph_run_agent -> (verification) -> ralph_iteration_end
            -> ralph_iteration_verdict
    ralph_session_finish

The human report (``check`` and both drivers) is told through the ``ralph_report_*``
hooks, which only the ``terminal`` plugin turns into output: ``ralph_report_phase`` as
the loop moves on, ``ralph_report_agent`` after the agent's turn,
``ralph_report_verification`` after every verification (``check``'s, the baseline,
each iteration's), ``ralph_report_line`` for what a plugin has to say.

The hooks are grouped by phase, one module each under ``ralph_verify/hookspec/``
(start-up, verification, loop, fleet, reporting) and all re-exported here, where
``pm.add_hookspecs`` finds them. Each hook says when it is called, what it receives
(``:param:``), what its answer means (``:returns:``), and shows an implementation.

Floor 7: imports the types its hooks carry (config, checks, agents, loop, fleet); imported
only by :mod:`ralph_verify.startup`, which adds the specifications to the plugin manager.
"""

from __future__ import annotations

from ralph_verify.hookspec import fleet, loop, reporting, startup, verification

#: The phases, in the order the reference (docs/hooks.md) lists them.
PHASES = (startup, verification, loop, fleet, reporting)

# Every hook of every phase, here, where ``pm.add_hookspecs`` finds them: one list, the
# phase modules', not a second one to keep in step.
globals().update({name: value for phase in PHASES for name, value in vars(phase).items()
                  if name.startswith("ralph_")})
