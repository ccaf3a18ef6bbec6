"""Every exit code of ``ralph-verify``, in one enum: users script on these numbers, which never
change (``check`` 0-4, one per verdict 10-15, 130 cancelled)."""

from __future__ import annotations

import enum

__all__ = ["ExitCode"]


class ExitCode(enum.IntEnum):
    """Exit codes of ``ralph-verify check`` and ``run`` (0-4: :data:`CHECK_MEANINGS`; ``run``
    ends ``OK`` on verdict ``complete``, ``CHECK_ERROR`` when a check errors at baseline)."""

    OK = 0
    CHECKS_FAILED = 1
    USAGE_ERROR = 2
    CHECK_ERROR = 3
    INTERNAL_ERROR = 4
    #: ``run`` verdicts, one code each.
    MAX_ITERATIONS = 10
    STALLED = 11
    BLOCKED = 12
    BUDGET = 13
    AGENT_ERROR = 14
    NOTHING_TO_DO = 15
    #: Ctrl-C, SIGTERM or ``ralph-verify cancel``.
    INTERRUPTED = 130
    CANCELLED = 130


#: What each exit code of ``check`` means, as ``--help`` and the README say it.
CHECK_MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "all checks passed",
    ExitCode.CHECKS_FAILED: "some check failed",
    ExitCode.USAGE_ERROR: "usage or configuration error (bad option, --until spec, config key, "
                          "plugin)",
    ExitCode.CHECK_ERROR: "a check could not decide (tool missing, timed out, crashed, "
                          "unreadable output)",
    ExitCode.INTERNAL_ERROR: "internal error in ralph-verify or a plugin (a bug: the traceback "
                             "is shown)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
}


def check_help() -> str:
    """The ``exit codes:`` section of ``--help``, from :data:`CHECK_MEANINGS`."""
    return "exit codes:\n" + "\n".join(f"  {int(code):<2} {meaning}"
                                       for code, meaning in CHECK_MEANINGS.items())
