"""The one place that maps outcomes and exceptions to exit codes: a ``UsageError`` is one
``ERROR: ...`` line and exit 2, Ctrl-C 130, anything else a bug with its traceback (4). A
reader that goes away (``| head -1``) never changes the exit code."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn, TextIO

from ralph_verify.errors import UsageError
from ralph_verify.exitcode import ExitCode

__all__ = ["ExitCode", "console_main", "main", "run_command", "verification_exit_code"]


def _forget_other_repositories() -> None:
    """Started from another repository's git hook (or with ``GIT_DIR`` exported), every git
    command would work on that repository: the project is the folder we run in."""
    from ralph_verify.project.git import REPOSITORY_VARIABLES

    for name in REPOSITORY_VARIABLES:
        os.environ.pop(name, None)


def main(args: Sequence[str] | None = None, plugins: Sequence[object] = ()) -> int:
    """The ``ralph-verify`` command; returns the exit code. ``plugins``: registered for this
    run only, as ``pytest.main(plugins=...)``; the command runs inside ``ralph_cmdline_main``
    (built-in: :func:`run_command`), so a plugin can wrap all of it."""
    argv = list(sys.argv[1:] if args is None else args)
    _forget_other_repositories()
    if argv in (["--version"], ["-V"]):
        from ralph_verify.markers import print_version

        return print_version()
    with _pipe_safe_output():
        try:
            from ralph_verify.config.parser import split_plugin_args
            from ralph_verify.startup import builtin_plugin_manager

            rest, disabled, _ = split_plugin_args(argv)
            pm = builtin_plugin_manager(disabled, plugins, command=next(iter(rest), None))
            code = pm.hook.ralph_cmdline_main(args=argv, plugins=list(plugins),
                                              pluginmanager=pm)
        except UsageError as exc:  # a malformed plugin given to main(plugins=...)
            print(f"ERROR: {exc}", file=sys.stderr)
            return ExitCode.USAGE_ERROR
        except Exception:
            return _internal_error()
        return ExitCode.INTERNAL_ERROR if code is None else int(code)


def console_main() -> NoReturn:
    """The ``ralph-verify`` command (and ``python -m ralph_verify``): :func:`main` with our
    own packages ahead of the user's ``PYTHONPATH``, then exit with its code."""
    sys.path[:] = _user_path_last(sys.path, os.environ.get("PYTHONPATH", ""))
    sys.exit(main())


def _user_path_last(path: list[str], pythonpath: str) -> list[str]:
    """``path`` with what ``PYTHONPATH`` put there moved to the end: a project that vendors
    pluggy or pydantic (``PYTHONPATH=src``) must not replace ours; a plugin only on
    ``PYTHONPATH`` is still found, and tools still get it (``tests/e2e/test_hostile_env.py``)."""
    if not pythonpath:
        return path
    ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    user = {os.path.abspath(entry or os.curdir) for entry in pythonpath.split(os.pathsep)}
    theirs = [entry for entry in path if os.path.abspath(entry or os.curdir) in user
              and os.path.abspath(entry) != ours]
    return [entry for entry in path if entry not in theirs] + theirs


def run_command(argv: list[str], plugins: Sequence[object],
                pluginmanager: Any = None) -> int:
    """Configure, run the command, unconfigure; every outcome as its exit code."""
    config = None
    try:
        from ralph_verify.startup import get_config

        config = get_config(argv, plugins, pluginmanager)
        return int(config.command.handler(config))
    except UsageError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return ExitCode.USAGE_ERROR
    except KeyboardInterrupt as exc:  # the signal's name, from signals.cancel_on_signals
        print(f"\nralph-verify: interrupted ({exc.args[0] if exc.args else 'Ctrl-C'})",
              file=sys.stderr)
        return ExitCode.INTERRUPTED
    except SystemExit as exc:  # argparse --help
        return int(exc.code or 0) if isinstance(exc.code, int) or exc.code is None else 2
    except OSError as exc:
        if not _unwritable(exc):
            return _internal_error()
        print(f"ERROR: cannot write {exc.filename}: {exc.strerror}; run ralph-verify in a "
              "project it may write to (its .ralph/ folder lives there)", file=sys.stderr)
        return ExitCode.USAGE_ERROR
    except Exception:
        return _internal_error()
    finally:
        if config is not None:
            try:
                config.hook.ralph_unconfigure(config=config)
            except Exception:
                import traceback  # only on errors: it pulls in textwrap

                traceback.print_exc()


def _unwritable(exc: OSError) -> bool:
    """A file the user's environment does not let us write (read-only tree, permissions,
    quota): the user's to fix, not a bug."""
    import errno

    return exc.filename is not None and exc.errno in (
        errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT)


def _internal_error() -> ExitCode:
    import traceback

    traceback.print_exc()
    print("INTERNAL ERROR: this is a bug in ralph-verify or one of its plugins "
          "(see 'ralph-verify plugins'); please report it with the traceback above",
          file=sys.stderr)
    return ExitCode.INTERNAL_ERROR


def verification_exit_code(passed: bool, errored: bool) -> ExitCode:
    """0 all passed, 3 some check errored (it could not decide), else 1."""
    if errored:
        return ExitCode.CHECK_ERROR
    return ExitCode.OK if passed else ExitCode.CHECKS_FAILED


class _PipeSafeStream:
    """stdout/stderr that survive their reader going away (``check | head -1``): the exit code
    must still be the verdict's, so after EPIPE the descriptor points at /dev/null."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._divert()
            return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._divert()

    def _divert(self) -> None:
        try:
            fd = self._stream.fileno()
        except (OSError, ValueError):
            return
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)
        # What the stream still holds in its buffer now drains into /dev/null.
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _pipe_safe_output() -> Iterator[None]:
    saved = sys.stdout, sys.stderr
    sys.stdout = _PipeSafeStream(saved[0])
    sys.stderr = _PipeSafeStream(saved[1])
    try:
        yield
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdout, sys.stderr = saved
