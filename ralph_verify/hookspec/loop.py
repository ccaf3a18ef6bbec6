"""The loop (``ralph-verify run``, and the agent's Stop hook in hook mode).

Both drivers fire these hooks in the order the package documents
(:mod:`ralph_verify.hookspec`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.markers import hookspec

if TYPE_CHECKING:
    from ralph_verify.agents import Agent, AgentRegistry, AgentRequest, AgentResult
    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config
    from ralph_verify.config.until import CheckSpec
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.verdict import VerdictProposal


@hookspec
def ralph_register_agents(registry: AgentRegistry) -> None:
    """Declare agent adapters for ``--agent NAME[:ARG]``.

    :param registry: call ``registry.add(AgentType(name, factory, help))``; the factory
        gets ``ARG`` and the common :class:`~ralph_verify.AgentOptions`, and returns an
        :class:`~ralph_verify.Agent` (a ``run(request) -> AgentResult`` method).

    ::

        @hookimpl
        def ralph_register_agents(registry):
            registry.add(AgentType("echo", lambda arg, options: Echo(arg),
                                   "prints the prompt; changes nothing"))
    """


@hookspec
def ralph_session_prepare(session: Session) -> None:
    """A session is about to start (or resume), before the baseline verification.

    Refuse to start by raising :class:`~ralph_verify.UsageError` (the git
    checkpoint refuses a tree with uncommitted changes unless ``--allow-dirty``):
    nothing has been spent yet, and the last session's records are left as they were.

    :param session: the new or resumed :class:`~ralph_verify.Session`; its
        ``baseline`` is still ``None`` here (on ``--resume``: the saved one), its
        ``config``, ``root`` and ``plugin_state`` are set.

    ::

        @hookimpl
        def ralph_session_prepare(session):
            if not (session.root / "APPROVED").exists():
                raise UsageError("no approval for this project: create APPROVED first")
    """


@hookspec
def ralph_session_start(session: Session) -> None:
    """A session starts (or resumes): the baseline verification is done.

    Not called when the baseline already ends the session (every check passes, or
    a check errors). Policies take their own baselines here (integrity, coverage at
    start), check their settings so a bad value fails before the agent spends, and
    restore state from ``session.plugin_state`` on resume.

    :param session: the :class:`~ralph_verify.Session`; ``session.baseline`` is the
        :class:`~ralph_verify.Verification` of the tree before the first iteration,
        ``session.resumed`` says whether this is ``--resume``.

    ::

        @hookimpl
        def ralph_session_start(session):
            state = session.plugin_state.setdefault("mine", {"failing": 0})
            state["failing"] = len(session.baseline.failed)
    """


@hookspec
def ralph_session_checks(config: Config, specs: list[CheckSpec]) -> list[CheckSpec] | None:
    """Add checks that every loop session verifies, beyond ``--until``.

    Called when a session (``run``, or ``start`` and each Stop hook in hook mode) builds
    its checks. The integrity plugin adds ``integrity`` here unless it is switched off.

    :param config: the run's :class:`~ralph_verify.Config`.
    :param specs: the session's :class:`~ralph_verify.CheckSpec`\\ s so far (``--until``).
    :returns: the specs to add (one already there, same text, is not added twice), or
        ``None``.

    ::

        @hookimpl
        def ralph_session_checks(config, specs):
            if not any(spec.name == "files" for spec in specs):
                return [parse_spec("files:CHANGELOG.md", source="my-plugin")]
            return None
    """


@hookspec(firstresult=True)
def ralph_runloop(session: Session, first: int) -> VerdictProposal | None:
    """Run the session's iterations, from number ``first``, until a verdict.

    Called once per ``run`` (after ``ralph_session_start``) and once per Stop hook call
    (the built-in runs one iteration there: the agent's turn is over when its Stop hook
    runs). The built-in (``trylast``) makes each :class:`~ralph_verify.Iteration` and
    calls ``ralph_run_iteration`` for it; ``session.mode`` says which driver runs it
    (``"run"`` or ``"hook"``). It has no iteration limit of its own: the
    ``max_iterations`` plugin votes at the limit, and answers here first, with no
    iteration, for a session whose limit is already behind it (``-p no:max_iterations``:
    no limit).

    :param session: the running :class:`~ralph_verify.Session`.
    :param first: the number of the first iteration to run (more than 1 on ``--resume``
        and in hook mode).
    :returns: the :class:`~ralph_verify.VerdictProposal` that ends the session, or
        ``None`` to leave the loop to the next implementation (the built-in returns
        ``None`` only when the Stop hook's iteration ended without a verdict).

    ::

        @hookimpl(wrapper=True)
        def ralph_runloop(session, first):
            started = time.monotonic()
            verdict = yield
            print(f"session {session.id}: {time.monotonic() - started:.0f}s of iterations")
            return verdict
    """


@hookspec(firstresult=True)
def ralph_run_iteration(session: Session, iteration: Iteration) -> bool | None:
    """Run one iteration: prompt -> agent -> verify -> record -> decide.

    The built-in (``trylast``) is the same code for both drivers; it calls, in order,
    ``ralph_iteration_start``, ``ralph_prompt_notes`` (``run`` renders the prompt; the
    Stop hook asked for it when it blocked the last stop), ``ralph_run_agent`` (in hook
    mode the agent's turn is already over: its "run" is the Stop hook's
    ``last_assistant_message``), the verification's hooks, ``ralph_iteration_end`` and
    ``ralph_iteration_verdict``; the verdict is left in ``iteration.verdict``.

    :param session: the running :class:`~ralph_verify.Session`.
    :param iteration: the new :class:`~ralph_verify.Iteration`, already last in
        ``session.iterations``.
    :returns: ``True`` when the implementation ran the iteration, ``None`` to leave it
        to the next one.

    ::

        @hookimpl(wrapper=True)
        def ralph_run_iteration(session, iteration):
            result = yield
            print(f"iteration {iteration.number}: {iteration.verdict or 'going on'}")
            return result
    """


@hookspec
def ralph_iteration_start(session: Session, iteration: Iteration) -> None:
    """An iteration begins; its prompt is not rendered yet.

    Called before ``ralph_prompt_notes`` and the agent; the budget policy sets
    ``iteration.budget_usd`` here. Raise :class:`~ralph_verify.UsageError` to stop the
    session with a clear error.

    :param session: the running :class:`~ralph_verify.Session` (earlier iterations in
        ``session.iterations``, this one last).
    :param iteration: the new :class:`~ralph_verify.Iteration`: its ``number`` (from 1) and
        ``started_at``; ``prompt`` is still empty.

    ::

        @hookimpl
        def ralph_iteration_start(session, iteration):
            print(f"iteration {iteration.number} of at most {session.max_iterations}")
    """


@hookspec
def ralph_prompt_notes(session: Session, iteration: Iteration) -> str | None:
    """Add a note to this iteration's prompt, under "Notes from the loop".

    Called while the prompt of ``iteration`` is rendered (after
    ``ralph_iteration_start``); the breaker says "the same failures persist: change
    your approach" this way.

    :param session: the running :class:`~ralph_verify.Session`; the previous
        iteration's results are in ``session.iterations[-2]``.
    :param iteration: the :class:`~ralph_verify.Iteration` whose prompt is rendered.
    :returns: the note (Markdown), or ``None`` for no note. Every implementation's
        note is added, in plugin order.

    ::

        @hookimpl
        def ralph_prompt_notes(session, iteration):
            if iteration.number > 3:
                return "Three turns so far: keep the change small."
            return None
    """


@hookspec(firstresult=True)
def ralph_run_agent(session: Session, iteration: Iteration, agent: Agent,
                    request: AgentRequest) -> AgentResult | None:
    """Run the agent for this iteration and return what it did.

    The files it changes are measured around this call (``iteration.files_changed``).

    :param session: the running session (its config, earlier iterations).
    :param iteration: this iteration; its prompt is rendered and ``budget_usd`` set.
    :param agent: the configured adapter (``--agent``).
    :param request: the prompt, the log path, the timeout, the cancel event, the budget
        left and ``env`` (extra environment for the agent's process).
    :returns: the :class:`~ralph_verify.AgentResult`; the first non-``None`` answer
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
    """The iteration's agent ran and its verification is done; update state, report.

    Called before the policies vote (``ralph_iteration_verdict``) and before the
    iteration is written to ``history.jsonl``, so what a plugin stores in
    ``session.plugin_state`` here is recorded with it.

    :param session: the running :class:`~ralph_verify.Session`.
    :param iteration: the finished :class:`~ralph_verify.Iteration`: ``agent`` (its
        :class:`~ralph_verify.AgentResult`), ``files_changed``, ``promises``, ``duration_s``.
    :param verification: the :class:`~ralph_verify.Verification` of the tree the agent left.

    ::

        @hookimpl
        def ralph_iteration_end(session, iteration, verification):
            print(f"iteration {iteration.number}: {len(verification.failed)} failing, "
                  f"changed {', '.join(iteration.files_changed) or 'nothing'}")
    """


@hookspec
def ralph_iteration_verdict(session: Session, iteration: Iteration,
                            verification: Verification) -> VerdictProposal | None:
    """Vote to end the session, or return ``None`` to go on.

    Every implementation is asked, after ``ralph_iteration_end``; the core decides among
    the proposals by the documented precedence in :mod:`ralph_verify.loop.verdict` (cancelled,
    complete, nothing-to-do, agent-error, blocked, budget, stalled, max-iterations), never
    by plugin order.

    :param session: the running :class:`~ralph_verify.Session`.
    :param iteration: the finished :class:`~ralph_verify.Iteration`.
    :param verification: its :class:`~ralph_verify.Verification`.
    :returns: a :class:`~ralph_verify.VerdictProposal` (its ``verdict`` decides the exit
        code, its ``reason`` is shown to the user; its ``source`` is filled in with the
        plugin's name), or ``None`` to let the loop go on.

    ::

        @hookimpl
        def ralph_iteration_verdict(session, iteration, verification):
            if verification.failed and quota_used_up():
                return VerdictProposal(Verdict.BUDGET, "the team's daily quota is used up")
            return None
    """


@hookspec
def ralph_session_finish(session: Session, verdict: VerdictProposal) -> None:
    """The session ended: reporters write their outputs.

    Called once per session, whatever ended it (also a cancel, a budget, an agent
    error), after ``state.json`` has the verdict.

    :param session: the finished :class:`~ralph_verify.Session`, every iteration in
        ``session.iterations``.
    :param verdict: the winning :class:`~ralph_verify.VerdictProposal` (``verdict``,
        ``reason``, ``source``).

    ::

        @hookimpl
        def ralph_session_finish(session, verdict):
            notify(f"{session.id}: {verdict.verdict.value} after "
                   f"{len(session.iterations)} iterations ({verdict.reason})")
    """
