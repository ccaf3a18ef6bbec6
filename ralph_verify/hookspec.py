"""Every hook ralph-verify calls, in one place, documented.

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

Each hook below says when it is called, what it receives (``:param:``), what its
answer means (``:returns:``), and shows an implementation.
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
    from ralph_verify.until import CheckSpec
    from ralph_verify.verdict import VerdictProposal
    from ralph_verify.verification import Verification, VerifyContext

hookspec = pluggy.HookspecMarker("ralph_verify")


@hookspec(firstresult=True)
def ralph_cmdline_main(args: list[str], plugins: list[object],
                       pluginmanager: pluggy.PluginManager) -> int | None:
    """Run one command line, from the configuration to the exit code.

    The first hook of every invocation, called on the built-in plugins and those given
    to ``ralph_verify.main(plugins=...)`` alone: no third-party plugin is imported yet;
    ``pluginmanager`` is then handed to the configuration, which loads them. The
    built-in ``core`` plugin answers last: it builds the configuration, runs the command
    and maps every outcome and exception to an exit code (:mod:`ralph_verify.session`).
    Wrap it to change what a command's failure means, as the ``hook`` command does: an
    agent's hook answers 0 and lets the agent go on, whatever failed (a bad
    configuration, a broken plugin, a crash).

    :param args: the command line, without the program name (``-p no:NAME`` still in it).
    :param plugins: plugin objects given to ``ralph_verify.main(plugins=...)`` for this run
        (registered already).
    :param pluginmanager: the plugin manager, holding the built-ins and ``plugins`` so far.
    :returns: the exit code.

    ::

        @hookimpl(wrapper=True)
        def ralph_cmdline_main(args):
            started = time.monotonic()
            code = yield
            print(f"{args[:1]} took {time.monotonic() - started:.1f}s", file=sys.stderr)
            return code
    """


@hookspec
def ralph_addoption(parser: Parser) -> None:
    """Declare command-line options, config settings and subcommands.

    Called once per plugin, before the command line is parsed, in registration
    order (built-ins first); what a plugin declares is listed under its name in
    ``--help`` and in the configuration reference.

    :param parser: call ``parser.addoption("--flag", setting="key", ...)`` for an
        option that may also be set as ``key`` in ``[tool.ralph-verify]`` (the
        command line wins), ``parser.addsetting(...)`` for a config-only setting,
        and ``parser.add_command(name, handler, help=...)`` for a subcommand.

    A setting is then read with ``config.get("key")``::

        @hookimpl
        def ralph_addoption(parser):
            parser.addoption("--flavour", setting="flavour", default="vanilla",
                             help="the flavour of the day")
    """


@hookspec(historic=True)
def ralph_configure(config: Config) -> None:
    """Act on the parsed command line and configuration.

    A plugin may register further plugin objects here (as ``--junitxml`` does) and
    keep per-run state on itself, never in globals. Historic: a plugin registered
    during configure is configured too.

    :param config: the run's :class:`~ralph_verify.Config`; settings are read
        with ``config.get(key)``, the subcommand is ``config.command.name``.

    Register a reporter only when its option is given::

        @hookimpl
        def ralph_configure(config):
            if config.get("flavour") == "mint":
                config.pluginmanager.register(MintReporter(config), "mint-reporter")
    """


@hookspec
def ralph_unconfigure(config: Config) -> None:
    """Release what ``ralph_configure`` acquired.

    Called once before exit, even after errors and Ctrl-C, so files are closed and
    child processes stopped whatever happened.

    :param config: the run's :class:`~ralph_verify.Config`, as ``ralph_configure`` got it.

    ::

        @hookimpl
        def ralph_unconfigure(config):
            reporter = config.pluginmanager.unregister(name="mint-reporter")
            if reporter is not None:
                reporter.close()
    """


@hookspec
def ralph_register_checks(registry: CheckRegistry) -> None:
    """Declare the check names this plugin provides for ``--until``.

    ``CheckType.options`` is a pydantic model validating
    ``[tool.ralph-verify.checks.NAME]``, or a lazy ``"module:Name"`` reference to one
    (``CheckType.options_class`` imports it); ``threshold`` says what ``name>=N``
    means (``None`` forbids a threshold); ``negatable`` allows ``!name``.

    :param registry: call ``registry.add(CheckType(name=..., factory=..., help=...))``.
        A name or alias already taken is an error naming both plugins.

    ``--until 'answer>=42'`` then builds ``AnswerCheck`` (a :class:`~ralph_verify.Check`)::

        @hookimpl
        def ralph_register_checks(registry):
            registry.add(CheckType(name="answer", factory=AnswerCheck, arg="required",
                                   threshold="the answer", help="the answer must be right"))
    """


@hookspec(firstresult=True)
def ralph_verify_check(check: Check, ctx: VerifyContext) -> CheckResult | None:
    """Run one check and return its result.

    Called from worker threads, concurrently for different checks of one
    verification. Implement it with ``wrapper=True`` to wrap every check: the
    built-in wrappers time each check and turn a missing tool, a timeout or a crash
    into an ``error`` result instead of a crash of ralph-verify.

    :param check: the configured check (``check.spec``, ``check.options``).
    :param ctx: the verification's context: project ``root``, a scratch
        ``workdir``, ``run()`` for tools (own process group, timeout),
        ``shared()`` to share one tool run between checks, and every
        ``checks`` of this verification.
    :returns: the :class:`~ralph_verify.CheckResult`, or ``None`` to leave the check to
        the next implementation. The first non-``None`` result wins; the built-in
        implementation (``trylast``) calls ``check.run(ctx)``.

    A wrapper that marks every result::

        @hookimpl(wrapper=True)
        def ralph_verify_check(check, ctx):
            result = yield
            result.summary += " (wrapped)"
            return result
    """


@hookspec
def ralph_verify_logresult(result: CheckResult) -> None:
    """Report one check's result as soon as it is known.

    Called in the main thread, in the order the checks finish (not the order of
    ``--until``), while the other checks still run: a slow suite's neighbours are
    reported without waiting for it.

    :param result: the finished check's :class:`~ralph_verify.CheckResult` (``spec``,
        ``status``, ``summary``, ``failures``, ``duration_s``).

    ::

        @hookimpl
        def ralph_verify_logresult(result):
            print(f"{result.spec}: {result.status.value} in {result.duration_s:.1f}s")
    """


@hookspec(firstresult=True)
def ralph_format_feedback(verification: Verification, budget: int) -> str | None:
    """Render the verification's failures as the text an agent reads next.

    The built-in (``trylast``) groups failures by fingerprint, counts and ranks
    the groups, quotes one example of each as tool output, and always says how
    much was left out.

    :param verification: all results of one verification (``verification.failed``
        are the failing ones).
    :param budget: the size limit in characters (``feedback-budget``, default 4000).
    :returns: the feedback text, at most ``budget`` characters, or ``None`` to leave it
        to the next implementation; the first string wins.

    ::

        @hookimpl
        def ralph_format_feedback(verification, budget):
            lines = [f"- {r.spec}: {r.summary}" for r in verification.failed]
            return "\\n".join(lines)[:budget]
    """


@hookspec
def ralph_register_init_targets(registry: InitRegistry) -> None:
    """Declare what ``ralph-verify init [TARGET]`` can set up.

    The bare ``init`` is the target ``project`` (``[tool.ralph-verify]``,
    ``PROMPT.md``, ``.gitignore``); ``init claude`` writes Claude Code's hooks.
    Options for ``init`` use scope ``"init"`` (``--force``, ``--dry-run``).

    :param registry: call ``registry.add(InitTarget(name, handler, help))``;
        ``handler(config)`` returns the exit code. A name declared twice is an error.

    :func:`~ralph_verify.apply_changes` writes :class:`~ralph_verify.FileChange`\\ s only
    where they do not clobber the user's own text: otherwise it shows the diff and
    refuses unless ``--force``::

        @hookimpl
        def ralph_register_init_targets(registry):
            registry.add(InitTarget("editorconfig", write_editorconfig, "write .editorconfig"))

        def write_editorconfig(config):
            path = config.root / ".editorconfig"
            old = path.read_text() if path.exists() else None
            apply_changes([FileChange(path, old, "root = true\\n", clobbers=old is not None)],
                          config.root, force=config.option.force,
                          dry_run=config.option.dry_run)
            return 0
    """


@hookspec
def ralph_verification_finish(config: Config, verification: Verification) -> None:
    """Write the outputs of ``ralph-verify check``'s verification.

    Called once per ``check``, after every check's result is known, the feedback is
    rendered and the human report shown (``ralph_report_verification``); ``--json`` and
    ``--junitxml`` are written here. (A loop writes its outputs in
    ``ralph_iteration_end`` and ``ralph_session_finish``.)

    :param config: the run's :class:`~ralph_verify.Config`.
    :param verification: every result (``results``; ``failed`` and ``errored`` are
        lists, ``passed`` says whether all passed) and the rendered ``feedback``.

    ::

        @hookimpl
        def ralph_verification_finish(config, verification):
            failed = [r.spec for r in verification.failed]
            (config.root / "verdict.txt").write_text(f"failed: {failed}\\n")
    """


# --- The loop (``ralph-verify run``) ---------------------------------------------------------


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
    (``"run"`` or ``"hook"``).

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
    the proposals by the documented precedence in :mod:`ralph_verify.verdict` (cancelled,
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


# --- The fleet (``ralph-verify fleet``) ------------------------------------------------------


@hookspec
def ralph_register_executors(registry: ExecutorRegistry) -> None:
    """Declare fleet executors: what runs the loops of ``ralph-verify fleet``.

    ``local`` is built in (a pool of child processes, ``-j`` at once); ``dask`` is a
    plugin that only the ``dask`` entry point of the ``ralph_verify`` group loads
    (``ralph_verify.fleet.dask_executor``; ``pip install 'ralph-verify[dask]'``).

    :param registry: call ``registry.add(ExecutorType(name, factory, help))``;
        ``--executor NAME`` then calls ``factory()`` for an :class:`~ralph_verify.Executor`:
        an object with a ``mode`` (``"worktree"`` on the repository's machine, ``"clone"``
        elsewhere) and a ``run(jobs, fleet)`` method. A name registered twice is an error
        naming it.

    An executor runs each job with :func:`~ralph_verify.run_job` wherever it likes and
    hands every result to ``fleet.finished(job, result)`` (a
    :class:`~ralph_verify.FleetContext`) as soon as it has it::

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


# --- Reporting (what a person watching ``check`` or ``run`` sees) ----------------------------
#
# The core and the plugins announce; the ``terminal`` plugin is the only thing that writes
# the human report (``-p no:terminal`` silences it; ``--json``, files and ``ERROR:`` lines on
# stderr stay). ``check`` and both loop drivers fire the same hooks: a verification is
# reported with ``ralph_report_verification`` wherever it ran.


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
