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
from ralph_verify.hookspec.fleet import (
    ralph_register_executors,
)
from ralph_verify.hookspec.loop import (
    ralph_iteration_end,
    ralph_iteration_start,
    ralph_iteration_verdict,
    ralph_prompt_notes,
    ralph_register_agents,
    ralph_run_agent,
    ralph_run_iteration,
    ralph_runloop,
    ralph_session_checks,
    ralph_session_finish,
    ralph_session_prepare,
    ralph_session_start,
)
from ralph_verify.hookspec.reporting import (
    ralph_report_agent,
    ralph_report_check_start,
    ralph_report_line,
    ralph_report_phase,
    ralph_report_tasks,
    ralph_report_verification,
    ralph_report_verification_start,
)
from ralph_verify.hookspec.startup import (
    ralph_addoption,
    ralph_cmdline_main,
    ralph_configure,
    ralph_register_init_targets,
    ralph_unconfigure,
)
from ralph_verify.hookspec.verification import (
    ralph_format_feedback,
    ralph_register_checks,
    ralph_verification_finish,
    ralph_verify_check,
    ralph_verify_logresult,
)
from ralph_verify.markers import hookspec

#: The phases, in the order the reference (docs/hooks.md) lists them.
PHASES = (startup, verification, loop, fleet, reporting)

__all__ = [
    "PHASES",
    "hookspec",
    "ralph_addoption",
    "ralph_cmdline_main",
    "ralph_configure",
    "ralph_format_feedback",
    "ralph_iteration_end",
    "ralph_iteration_start",
    "ralph_iteration_verdict",
    "ralph_prompt_notes",
    "ralph_register_agents",
    "ralph_register_checks",
    "ralph_register_executors",
    "ralph_register_init_targets",
    "ralph_report_agent",
    "ralph_report_check_start",
    "ralph_report_line",
    "ralph_report_phase",
    "ralph_report_tasks",
    "ralph_report_verification",
    "ralph_report_verification_start",
    "ralph_run_agent",
    "ralph_run_iteration",
    "ralph_runloop",
    "ralph_session_checks",
    "ralph_session_finish",
    "ralph_session_prepare",
    "ralph_session_start",
    "ralph_unconfigure",
    "ralph_verification_finish",
    "ralph_verify_check",
    "ralph_verify_logresult",
]
