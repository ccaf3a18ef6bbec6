"""Every hook ralph-verify calls, in one place, documented.

Plugins implement these with ``@ralph_verify.hookimpl``. Hook names start with
``ralph_``; a plugin that implements an unknown ``ralph_`` hook is refused at
start-up with its name and the hook's. Arguments are passed by name, so an
implementation may accept only the ones it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from ralph_verify.agents import Agent, AgentRegistry, AgentRequest, AgentResult
    from ralph_verify.checks import Check, CheckRegistry, CheckResult
    from ralph_verify.config import Config
    from ralph_verify.config.parser import Parser
    from ralph_verify.fleet.executor import ExecutorRegistry
    from ralph_verify.iteration import Iteration, Session
    from ralph_verify.scaffold import InitRegistry
    from ralph_verify.verdict import VerdictProposal
    from ralph_verify.verification import Verification, VerifyContext

hookspec = pluggy.HookspecMarker("ralph_verify")


@hookspec
def ralph_addoption(parser: Parser) -> None:
    """Declare command-line options, config settings and subcommands.

    :param parser: call ``parser.addoption("--flag", setting="key", ...)`` for an
        option that may also be set as ``key`` in ``[tool.ralph-verify]`` (the
        command line wins), ``parser.addsetting(...)`` for a config-only setting,
        and ``parser.add_command(name, handler, help=...)`` for a subcommand.

    Called once per plugin, before the command line is parsed, in registration
    order (built-ins first); what a plugin declares is listed under its name.
    """


@hookspec(historic=True)
def ralph_configure(config: Config) -> None:
    """Act on the parsed command line and configuration.

    :param config: the run's :class:`~ralph_verify.Config`; settings are read
        with ``config.get(key)``.

    A plugin may register further plugin objects here (as pytest's junitxml
    does) and keep per-run state on itself, never in globals. Historic: a plugin
    registered during configure is configured too.
    """


@hookspec
def ralph_unconfigure(config: Config) -> None:
    """Release what ``ralph_configure`` acquired; called once before exit, even after errors."""


@hookspec
def ralph_register_checks(registry: CheckRegistry) -> None:
    """Declare the check names this plugin provides.

    :param registry: call ``registry.add(CheckType(name=..., factory=..., help=...))``.
        A name or alias already taken is an error naming both plugins.

    ``CheckType.options`` is a pydantic model validating
    ``[tool.ralph-verify.checks.NAME]``; ``threshold`` says what ``name>=N``
    means (``None`` forbids a threshold); ``negatable`` allows ``!name``.
    """


@hookspec(firstresult=True)
def ralph_verify_check(check: Check, ctx: VerifyContext) -> CheckResult | None:
    """Run one check and return its result.

    :param check: the configured check (``check.spec``, ``check.options``).
    :param ctx: the verification's context: project ``root``, a scratch
        ``workdir``, ``run()`` for tools (own process group, timeout),
        ``shared()`` to share one tool run between checks, and every
        ``checks`` of this verification.

    The first non-``None`` result wins; the built-in implementation (``trylast``)
    calls ``check.run(ctx)``. Implement it with ``wrapper=True`` to wrap every
    check: the built-in wrappers time each check and turn a missing tool, a
    timeout or a crash into an ``error`` result instead of a crash of
    ralph-verify. Called from worker threads, concurrently for different checks.
    """


@hookspec
def ralph_verify_logresult(result: CheckResult) -> None:
    """Report one check's result as soon as it is known (main thread, completion order)."""


@hookspec(firstresult=True)
def ralph_format_feedback(verification: Verification, budget: int) -> str | None:
    """Render the verification's failures as the text an agent reads next.

    :param verification: all results of one verification.
    :param budget: the size limit in characters (``feedback-budget``, default 4000).

    The built-in (``trylast``) groups failures by fingerprint, counts and ranks
    the groups, quotes one example of each as tool output, and always says how
    much was left out. Return a string to replace it.
    """


@hookspec
def ralph_register_init_targets(registry: InitRegistry) -> None:
    """Declare what ``ralph-verify init [TARGET]`` can set up.

    :param registry: call ``registry.add(InitTarget(name, handler, help))``;
        ``handler(config)`` returns the exit code. The bare ``init`` is the target
        ``project`` (``[tool.ralph-verify]``, ``PROMPT.md``, ``.gitignore``);
        ``init claude`` writes Claude Code's hooks. Options for ``init`` use scope
        ``"init"`` (``--force``, ``--dry-run``). Helpers in
        :mod:`ralph_verify.scaffold` write a file only where it does not clobber
        the user's own text: otherwise they show the diff and refuse unless
        ``--force``.
    """


@hookspec
def ralph_verification_finish(config: Config, verification: Verification) -> None:
    """Report a finished verification: the terminal summary, ``--json``, other outputs."""


# --- The loop (``ralph-verify run``) ---------------------------------------------------------


@hookspec
def ralph_register_agents(registry: AgentRegistry) -> None:
    """Declare agent adapters: ``registry.add(AgentType(name, factory, help))``.

    ``--agent NAME[:ARG]`` picks one; the factory gets ``ARG`` and the common
    :class:`~ralph_verify.agents.AgentOptions`.
    """


@hookspec
def ralph_session_prepare(session: Session) -> None:
    """A session is about to start (or resume), before the baseline verification.

    Refuse to start by raising :class:`~ralph_verify.UsageError` (the git
    checkpoint refuses a tree with uncommitted changes unless ``--allow-dirty``):
    nothing has been spent yet. ``session.baseline`` is still ``None`` here.
    """


@hookspec
def ralph_session_start(session: Session) -> None:
    """A session starts (or resumes): the baseline verification is in ``session.baseline``.

    Policies take their own baselines here (integrity, coverage at start) and
    restore state from ``session.plugin_state`` on resume.
    """


@hookspec
def ralph_iteration_start(session: Session, iteration: Iteration) -> None:
    """An iteration begins; its prompt is not rendered yet."""


@hookspec
def ralph_prompt_notes(session: Session, iteration: Iteration) -> str | None:
    """Return a note to add to this iteration's prompt (e.g. the breaker's
    "the same failures persist: change your approach"), or ``None``."""


@hookspec(firstresult=True)
def ralph_run_agent(session: Session, iteration: Iteration, agent: Agent,
                    request: AgentRequest) -> AgentResult | None:
    """Run the agent for this iteration and return what it did.

    :param session: the running session (its config, earlier iterations).
    :param iteration: this iteration; its prompt is rendered and ``budget_usd`` set.
    :param agent: the configured adapter (``--agent``).
    :param request: the prompt, the log path, the timeout, the cancel event, the budget
        left and ``env`` (extra environment for the agent's process).
    :returns: the :class:`~ralph_verify.agents.AgentResult`; the first non-``None`` answer
        wins. The built-in implementation (``trylast``) calls ``agent.run(request)``.

    Wrap it (``wrapper=True``) to time or trace the agent, or to add to ``request.env``
    before it runs (the ``otel`` plugin passes ``TRACEPARENT`` this way)::

        @hookimpl(wrapper=True)
        def ralph_run_agent(request):
            request.env = {**request.env, "MY_TRACE": "..."}
            result = yield
            return result
    """


@hookspec
def ralph_iteration_end(session: Session, iteration: Iteration,
                        verification: Verification) -> None:
    """The iteration's agent ran and its verification is done; update state, report."""


@hookspec
def ralph_iteration_verdict(session: Session, iteration: Iteration,
                            verification: Verification) -> VerdictProposal | None:
    """Vote to end the session, or return ``None`` to go on.

    Every implementation is asked; the core decides among the proposals by the
    documented precedence in :mod:`ralph_verify.verdict` (cancelled, complete, nothing-to-do,
    agent-error, blocked, budget, stalled, max-iterations), never by plugin order.
    """


@hookspec
def ralph_session_finish(session: Session, verdict: VerdictProposal) -> None:
    """The session ended with ``verdict``; reporters write their outputs."""


# --- The fleet (``ralph-verify fleet``) ------------------------------------------------------


@hookspec
def ralph_register_executors(registry: ExecutorRegistry) -> None:
    """Declare fleet executors: what runs the loops of ``ralph-verify fleet``.

    :param registry: call ``registry.add(ExecutorType(name, factory, help))``;
        ``--executor NAME`` then calls ``factory()`` for an object with a ``mode``
        (``"worktree"`` on the repository's machine, ``"clone"`` elsewhere) and a
        ``run(jobs, fleet)`` method (see :mod:`ralph_verify.fleet.executor`).
    :returns: nothing; a name registered twice is an error naming it.

    ``local`` is built in (a pool of child processes, ``-j`` at once); ``dask`` is a
    plugin that only the ``dask`` entry point of the ``ralph_verify`` group loads
    (``ralph_verify.fleet.dask_executor``; ``pip install 'ralph-verify[dask]'``).
    An executor runs each job with :func:`ralph_verify.fleet.job.run_job` wherever it
    likes and hands every result to ``fleet.finished(job, result)`` as soon as it has it::

        @hookimpl
        def ralph_register_executors(registry):
            registry.add(ExecutorType("inline", Inline, "one loop after another"))

        class Inline:
            mode = "worktree"

            def run(self, jobs, fleet):
                for job in jobs:
                    job = fleet.prepare(job)
                    if job is not None:
                        fleet.started(job, "here")
                        fleet.finished(job, run_job(job))
    """
