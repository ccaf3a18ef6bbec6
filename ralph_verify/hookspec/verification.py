"""Verification: the checks, running one, its result and the feedback an agent gets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.markers import hookspec

if TYPE_CHECKING:
    from ralph_verify.checks.api import Check, CheckResult, VerifyContext
    from ralph_verify.checks.registry import CheckRegistry
    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config


@hookspec
def ralph_register_checks(registry: CheckRegistry) -> None:
    """Declare the check names this plugin provides for ``--until``.

    ``CheckType.options`` is the type ``[tool.ralph-verify.checks.NAME]`` is validated
    against: a :class:`~ralph_verify.CheckOptions` subclass (a pydantic model), or a
    dataclass subclassing ``ralph_verify.config.parser.CommonOptions`` (pydantic is then
    imported only when the file has a table); ``threshold`` says what ``name>=N`` means
    (``None`` forbids a threshold); ``negatable`` allows ``!name``.

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
