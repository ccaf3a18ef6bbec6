"""Reporting: what a person watching ``check`` or ``run`` sees.

The core and the plugins announce; the ``terminal`` plugin is the only thing that writes
the human report (``-p no:terminal`` silences it; ``--json``, files and ``ERROR:`` lines on
stderr stay). ``check`` and both loop drivers fire the same hooks: a verification is
reported with ``ralph_report_verification`` wherever it ran.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.markers import hookspec

if TYPE_CHECKING:
    from ralph_verify.checks.api import Check
    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.tasks.state import TasksState


@hookspec
def ralph_report_line(config: Config, line: str) -> None:
    """Show one line to the person watching (``report: .ralph/report.html``).

    Plugins call it (``config.hook.ralph_report_line(config=config, line=...)``) instead
    of printing, so the line lands above the live status line, obeys ``--quiet`` and
    ``-p no:terminal``, and another reporter can take it. Errors are not report lines:
    they go to stderr as ``ERROR: ...``.

    :param config: the run's :class:`~ralph_verify.Config`.
    :param line: the text, one line or several separated by newlines, no escape sequences.

    The terminal prints it; a plugin implementing it sees every such line::

        @hookimpl
        def ralph_report_line(config, line):
            with open(config.root / "ralph.log", "a") as log:
                log.write(line + "\\n")
    """


@hookspec
def ralph_report_phase(session: Session, phase: str) -> None:
    """The loop entered a new phase; the live status line shows it.

    Fired by both drivers: ``verifying the baseline``, ``agent NAME running``,
    ``verifying``, ``finished: VERDICT``, ``cancelling``, and by plugins that wait
    (``rate limit: next agent call in 5m02s``). It may be fired from a signal handler or
    another thread (``cancelling``): keep implementations short.

    :param session: the running :class:`~ralph_verify.Session` (``session.last`` is the
        current iteration; none while the baseline is verified).
    :param phase: what the loop does now, in a few words.

    ::

        @hookimpl
        def ralph_report_phase(session, phase):
            set_window_title(f"ralph {session.id}: {phase}")
    """


@hookspec
def ralph_report_agent(session: Session, iteration: Iteration) -> None:
    """The agent's turn of ``iteration`` is over (before its verification).

    :param session: the running :class:`~ralph_verify.Session`.
    :param iteration: the :class:`~ralph_verify.Iteration` with ``agent`` (its
        :class:`~ralph_verify.AgentResult`), ``files_changed`` and ``promises`` set.

    The terminal prints ``iteration 2: agent exit 0 in 41s; changed 3 files``::

        @hookimpl
        def ralph_report_agent(session, iteration):
            if iteration.agent.cost_usd:
                print(f"iteration {iteration.number} cost ${iteration.agent.cost_usd:.2f}")
    """


@hookspec
def ralph_report_verification(config: Config, session: Session | None,
                              iteration: Iteration | None, verification: Verification) -> None:
    """Report a finished verification: of ``check``, of a session's baseline, of an iteration.

    The one reporting path: ``check`` and both loop drivers fire it for every
    verification, after its feedback is final (pre-existing failures marked). The
    terminal prints ``check``'s full report (one line per check, the feedback, the
    verdict line) and a session's one-line summary (``iteration 2: 3/4 checks passed``).
    Each check's result was reported before, as it finished, with
    ``ralph_verify_logresult``.

    :param config: the run's :class:`~ralph_verify.Config`.
    :param session: the running :class:`~ralph_verify.Session`, or ``None`` under
        ``check``.
    :param iteration: the :class:`~ralph_verify.Iteration` verified, or ``None`` for
        ``check`` and for a session's baseline.
    :param verification: every result (``results``, ``failed``, ``errored``, ``passed``)
        and the rendered ``feedback``.

    ::

        @hookimpl
        def ralph_report_verification(session, iteration, verification):
            where = "check" if session is None else f"iteration {iteration.number}" \\
                if iteration else "baseline"
            print(f"{where}: {len(verification.failed)} failing")
    """


@hookspec
def ralph_report_verification_start(config: Config, checks: list[Check]) -> None:
    """A verification starts: ``checks`` are about to run (``check``, a baseline, an iteration).

    Fired by :func:`~ralph_verify.checks.verification.verify` in the main thread before
    any check runs, so a reporter can show its header at once instead of after the
    slowest check; each result then comes with ``ralph_verify_logresult`` as it is
    decided, and the whole with ``ralph_report_verification``.

    :param config: the run's :class:`~ralph_verify.Config`.
    :param checks: the :class:`~ralph_verify.Check` objects, in the order of ``--until``.

    ::

        @hookimpl
        def ralph_report_verification_start(config, checks):
            print("verifying", ", ".join(check.spec.text for check in checks))
    """


@hookspec
def ralph_report_check_start(config: Config, check: Check) -> None:
    """One check of a verification starts running (the live line lists the running ones).

    Called from the worker thread that runs the check, concurrently with other checks:
    keep implementations short and thread-safe.

    :param config: the run's :class:`~ralph_verify.Config`.
    :param check: the :class:`~ralph_verify.Check` starting now.

    ::

        @hookimpl
        def ralph_report_check_start(config, check):
            print(f"{check.spec.text} started")
    """


@hookspec
def ralph_report_progress(config: Config, name: str, done: int, total: int | None) -> None:
    """A running tool says how far it has got: ``pytest`` with tests finished of tests
    collected (``total`` is ``None`` until collection ends). The live line shows it.

    Called from a watcher thread about twice a second while the tool runs (a figure not
    repeated for a second is stale: the tool ended): keep implementations short and
    thread-safe.

    :param config: the run's :class:`~ralph_verify.Config`.
    :param name: the tool (``pytest``).
    :param done: units finished so far (tests).
    :param total: units to do, when known.

    ::

        @hookimpl
        def ralph_report_progress(config, name, done, total):
            print(f"{name}: {done}/{total or '?'}")
    """


@hookspec
def ralph_report_tasks(config: Config, tasks: TasksState) -> None:
    """A task list ended (``run --tasks``, or hook mode's Stop hook after ``start --tasks``).

    Fired once per list, after its last task and its final check, whatever the verdict
    (``complete``, ``incomplete``, ``stopped``, ``paused``, ``cancelled`` ...); each task
    was one loop session, reported by the session hooks as it ran. The HTML report adds
    its task section, ``--junitxml`` one test case per task, ``--github`` the table to the
    job summary.

    :param config: the run's :class:`~ralph_verify.Config`.
    :param tasks: the list's state (``.ralph/tasks/state.json``): ``verdict``, ``notes``
        and ``tasks``, one row per task with ``id``, ``title``, ``status``, ``reason``,
        ``iterations``, ``cost_usd``, ``duration_s``, ``gate`` and ``commit``.

    ::

        @hookimpl
        def ralph_report_tasks(config, tasks):
            done = sum(row.status in ("done", "already") for row in tasks.tasks)
            print(f"{done} of {len(tasks.tasks)} tasks done: {tasks.verdict}")
    """
