"""The core's own hook implementations: the command line, common options, running a check."""

from __future__ import annotations

import errno
import time
from collections.abc import Generator

import pluggy

from ralph_verify.checks.api import Check, CheckResult, VerifyContext
from ralph_verify.cli import run_command
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser, positive_duration, positive_int
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl
from ralph_verify.proc.process import ToolError


@hookimpl(trylast=True)
def ralph_cmdline_main(args: list[str], plugins: list[object],
                       pluginmanager: pluggy.PluginManager) -> int:
    return run_command(args, plugins, pluginmanager)


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--root", scope="project", metavar="DIR",
                     help="project root: where checks run and pyproject.toml is read "
                          "(default: nearest folder with pyproject.toml or .git)")
    parser.addoption("--timeout", setting="timeout", type=positive_duration, default=900.0,
                     metavar="DURATION",
                     help="seconds before a check's tool is killed and the check errors "
                          "(default 900; per check: [tool.ralph-verify.checks.NAME] timeout)")
    parser.addoption("--feedback-budget", setting="feedback-budget", type=positive_int,
                     default=4000, metavar="CHARS",
                     help="size limit of the feedback text in characters (default 4000)")
    parser.addoption("--python", setting="python", metavar="PATH",
                     help="the project's Python interpreter, for pytest and mypy "
                          "(default: $VIRTUAL_ENV -- unless it is ralph-verify's own "
                          "virtualenv and the project has one --, then .venv/ or venv/ in "
                          "the root, then ralph-verify's own)")
    parser.addoption("-j", "--jobs", setting="jobs", type=positive_int, metavar="N",
                     help="how many checks run at once (default: all of them)")


@hookimpl
def ralph_configure(config: Config) -> None:
    """A ``--python`` that names nothing runnable fails before anything runs."""
    configured = config.get("python") if "verify" in config.command.scopes else None
    if not configured:
        return
    from pathlib import Path

    full = config.root / Path(str(configured)).expanduser()  # an absolute path stays itself
    where = ("--python" if config.source_of("python") == "command line"
             else f"python in {config.source_of('python')}")
    if full.is_dir():
        inside = next((p for p in (full / "bin" / "python", full / "Scripts" / "python.exe")
                       if p.is_file()), None)
        hint = f"; did you mean {inside}?" if inside else ""
        raise UsageError(f"{where} {configured}: is a directory, not a Python interpreter "
                         f"(give the interpreter itself, e.g. .venv/bin/python){hint}")
    if not full.exists():
        raise UsageError(f"{where} {configured}: no such file (give the path of the project's "
                         "Python interpreter, e.g. .venv/bin/python)")


@hookimpl(trylast=True)
def ralph_verify_check(check: Check, ctx: VerifyContext) -> CheckResult:
    return check.run(ctx)


@hookimpl(wrapper=True, specname="ralph_verify_check")
def ralph_verify_check_wrapper(check: Check, ctx: VerifyContext) -> Generator[
        None, CheckResult | None, CheckResult | None]:
    """Time every check; a missing tool, a timeout or a crash becomes an ``error`` result."""
    started = time.perf_counter()
    try:
        result = yield
    except ToolError as exc:
        result = check.error(str(exc), output=exc.output)
    except OSError as exc:
        if exc.errno not in _DISK_FULL:
            result = _crashed(check, exc)
        else:  # the machine's trouble, not the plugin's: say what to free
            import tempfile

            result = check.error(
                f"the disk is full ({exc.strerror}): could not write "
                f"{exc.filename or 'its scratch files'} (TMPDIR is {tempfile.gettempdir()}); "
                "free some space or point TMPDIR at a disk with room, then check again")
    except Exception as exc:
        result = _crashed(check, exc)
    if result is not None and not result.duration_s:
        result.duration_s = time.perf_counter() - started
    return result


#: No room left, whoever's quota.
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def _crashed(check: Check, exc: Exception) -> CheckResult:
    import traceback  # only for a crash: it pulls in textwrap

    plugin = check.type.plugin or "?"
    return check.error(f"check {check.spec.text!r} crashed ({type(exc).__name__}: {exc}); "
                       f"this is a bug in plugin {plugin}", output=traceback.format_exc(limit=8))

