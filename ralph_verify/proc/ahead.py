"""Tools started ahead: ``check`` starts its Python tools before it has imported itself.

A warm ``ralph-verify check`` spent some 70 ms of its own (Python's start, its imports, the
configuration) before pytest started: on a one-second suite, 7% more than the tools started
by hand. So a ``check`` keeps a *plan* of the first tool it started (the costliest, pytest)
when that is a ``python -m MODULE`` tool: its command line, folder and environment, the
folders of its work folder and the files on its ``PYTHONPATH`` there. The plan is keyed by
what the command saw at its start: its arguments, folder, environment and Python. The same
command next time starts that tool at once, from the face of the package
(:func:`start_ahead`), behind a gate (:mod:`ralph_verify.proc.gate`) that imports the
tool's module (pytest's own start, 130 ms) and waits.

The command then does all its work as before, in the work folder the plan made. Where it
would start a tool, it *adopts* the started one only if the command line, the folder, the
environment and the files on its ``PYTHONPATH`` are exactly the same; then the gate opens.
Anything else (a changed configuration, a result from the cache, an error) kills the
started process, which has run nothing of the project: the gate runs the real command
afresh if importing the tool touched the project's folder. A plan never decides what runs,
only how early: what runs is what the command computes, compared value by value.

Imported by the face before anything of ours is built: standard library only, no
dataclasses, and nothing heavy until a plan is found.
"""

from __future__ import annotations

import os

from ralph_verify.proc.bare_spawn import Spawned, can_start_in, spawn
from ralph_verify.proc.plans import files_on_path, keep, plan_key, plan_path

#: Nothing but ``os`` and ``sys`` before the tool has started: type checkers read this as
#: true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path
    from typing import Any

#: ``RALPH_VERIFY_AHEAD=0`` starts nothing ahead (and keeps no plan).
SWITCH_VAR = "RALPH_VERIFY_AHEAD"
#: At most this much of files is kept in a plan; a larger work folder gets no plan.
MAX_PLAN_BYTES = 4 * 1024 * 1024
GATE_OPEN = b"g"
#: Shared with :mod:`ralph_verify.proc.gate` and :mod:`ralph_verify.proc.info` (which the
#: face does not import before the tool has started; a test holds them equal).
GATE_VAR = "RALPH_VERIFY_GATE"
PYTHON_VAR = "RALPH_VERIFY_GATE_PYTHON"
PARENT_VAR = "RALPH_VERIFY_GATE_PARENT"
MARK_VAR = "RALPH_VERIFY_PROCESS"


class Started:
    """A tool started ahead, waiting at its gate."""

    __slots__ = (
        "argv",
        "cwd",
        "env",
        "files",
        "gate",
        "mark",
        "proc",
        "stderr_path",
        "stdout_path",
        "workdir",
    )

    def __init__(self, argv: list[str], cwd: str, env: dict[str, str],
                 proc: Spawned, gate: int, stdout_path: str,
                 stderr_path: str, mark: str, workdir: str, files: dict[str, bytes]) -> None:
        self.argv, self.cwd, self.env, self.proc = argv, cwd, env, proc
        self.gate, self.stdout_path, self.stderr_path = gate, stdout_path, stderr_path
        self.mark, self.workdir = mark, workdir
        self.files = files  # what the tool may read before its gate: as the plan wrote them

    def go(self) -> bool:
        """Open the gate: the tool runs from here as the command itself would. False if the
        process is gone (it was killed): then it is dropped, and the caller starts the tool."""
        try:
            os.write(self.gate, GATE_OPEN)
        except OSError:
            self.drop()
            return False
        os.close(self.gate)
        return True

    def drop(self) -> None:
        """Kill the process (it ran nothing of the project) and close its gate."""
        import contextlib
        import signal

        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.close(self.gate)
        self.proc.wait()
        for path in (self.stdout_path, self.stderr_path):
            with contextlib.suppress(OSError):
                os.unlink(path)


class _State:
    """What this process started ahead, and the plan it is noting for the next command."""

    def __init__(self) -> None:
        import _thread  # built in: threading would bring collections before the tool starts

        self.key: str | None = None  # the face ran: the plan's key for this command
        self.wanted = False  # the command keeps a plan of its verification (check)
        self.workdir: str | None = None  # made by the plan, for the first verification
        self.started: list[Started] = []
        self.lock = _thread.allocate_lock()
        self.recording: Path | None = None  # the work folder whose first tool is noted
        self.plan: dict[str, Any] | None = None
        self.stale = False  # the kept plan is not what this command runs first
        self.loaded: dict[str, Any] | None = None  # the plan the face read


_state = _State()


def is_check(args: Sequence[str]) -> bool:
    """Whether ``args`` run the ``check`` command (the first argument but ``-p no:NAME``, as
    :func:`ralph_verify.config.plugin_args.split_disable_args` reads them): only ``check``
    starts a tool ahead; a loop (``run``, ``start``, the agent hooks) never does, so no plan
    written into the cache can change what a loop runs."""
    index = 0
    while index < len(args):
        if args[index] == "-p" and index + 1 < len(args) and args[index + 1].startswith("no:"):
            index += 2
        elif args[index].startswith("-pno:"):
            index += 1
        else:
            return args[index] == "check"
    return False


def start_ahead(args: Sequence[str]) -> None:
    """Start the tool of the kept plan for this command line, if there is one (Linux and
    other POSIX systems). Never raises: a plan is only a head start."""
    if os.name != "posix" or os.environ.get(SWITCH_VAR) == "0" or not is_check(args):
        return
    try:
        key = plan_key(args)
    except (OSError, UnicodeError):  # the folder is gone: the command will say so
        return
    _state.key = key
    try:
        import marshal

        with open(plan_path(key), "rb") as handle:
            plan = marshal.load(handle)
        if not isinstance(plan, dict) or plan.get("key") != key:
            return
        _state.loaded = plan
        if plan.get("rested"):
            return  # the last same command ran no tool (the cache answered): none now
        _start(plan)
    except Exception:  # an unreadable plan is no plan; what was started is ended
        _at_exit()
        return
    if _state.started:
        import atexit

        atexit.register(_at_exit)  # a command that never verifies (an error)


def _at_exit() -> None:
    """A command that ended without verifying: its tool started ahead and the work folder
    made for it go."""
    drop_all()
    workdir, _state.workdir = _state.workdir, None
    if workdir is not None:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)


def drop_all() -> None:
    """Kill every tool started ahead and not adopted."""
    while _state.started:
        _state.started.pop().drop()


def _start(plan: dict[str, Any]) -> None:
    """Make the work folder as the plan's was when its tool started, and start the tool
    behind its gate: with strings and ``os.posix_spawn``, before pathlib, typing or
    subprocess are imported (some 25 ms of a start)."""
    old = str(plan["workdir"])
    for rel in (*plan["dirs"], *plan["files"]):
        if os.path.isabs(rel) or os.pardir in rel.split(os.sep):
            raise ValueError(f"a plan names {rel!r} outside its work folder")
    workdir = os.path.join(plan["parent"], f"ralph-verify-{os.urandom(6).hex()}")
    os.mkdir(workdir, 0o700)
    _state.workdir = workdir
    for rel in sorted(plan["dirs"]):
        os.makedirs(os.path.join(workdir, rel), exist_ok=True)
    for rel, data in plan["files"].items():
        with open(os.path.join(workdir, rel), "xb") as handle:
            handle.write(data)
    tool = plan["tool"]
    argv = [arg.replace(old, workdir) for arg in tool["argv"]]
    env = {name: value.replace(old, workdir) for name, value in tool["env"].items()}
    output = os.path.join(workdir, tool["output"])
    stdout_path = os.path.join(output, f"out-{os.urandom(4).hex()}.txt")
    stderr_path = os.path.join(output, f"err-{os.urandom(4).hex()}.txt")
    # Unique beside proc.info.new_mark()'s, whose count starts at 1.
    mark = f"{os.getpid()}-0-{os.urandom(4).hex()}"
    gate_read, gate = os.pipe()
    child_env = {**env, MARK_VAR: mark, GATE_VAR: str(gate_read), PYTHON_VAR: argv[0],
                 PARENT_VAR: str(os.getpid())}
    gate_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gate.py")
    command = [argv[0], gate_script, *argv[1:]]
    try:
        out = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            err = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                pid = spawn(command, tool["cwd"], child_env, out, err, gate_read)
            finally:
                os.close(err)
        finally:
            os.close(out)
    except BaseException:
        os.close(gate)
        raise
    finally:
        os.close(gate_read)
    _state.started.append(Started(argv, str(tool["cwd"]), env, Spawned(pid, command), gate,
                                  stdout_path, stderr_path, mark, workdir, plan["files"]))


def take_workdir() -> Path | None:
    """The work folder the plan made, for the verification that may adopt its tool: the
    first of a command that keeps a plan (``check``), once."""
    if not _state.wanted:
        return None
    workdir, _state.workdir = _state.workdir, None
    if workdir is None:
        return None
    from pathlib import Path

    return Path(workdir)


def adopt(argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None,
          shell: bool) -> Started | None:
    """The tool started ahead that is exactly this one, taken out of the waiting ones; or
    ``None``. Exactly: the same command line, folder and environment, and the files on its
    ``PYTHONPATH`` in the work folder unchanged since it started."""
    if not _state.started or shell:
        return None
    wanted_env = dict(os.environ if env is None else env)
    with _state.lock:
        for started in _state.started:
            if started.argv != list(argv) or started.cwd != str(cwd) \
                    or started.env != wanted_env:
                continue
            try:
                if files_on_path(wanted_env, started.workdir) != started.files:
                    continue
            except OSError:
                continue
            _state.started.remove(started)
            return started
    return None


def want_plan() -> None:
    """This command keeps a plan of its (first) verification: ``check`` calls it."""
    _state.wanted = True


def record(workdir: Path) -> None:
    """Note the Python tools this verification starts in ``workdir``, for the next plan of
    this command: only in the command that ran the face and wants a plan, and only once."""
    if _state.key is not None and _state.wanted and _state.plan is None and not _state.stale:
        _state.recording = workdir


def note(argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None, shell: bool,
         output: Path) -> None:
    """A tool was started: the verification's first is kept for the plan if it is a
    ``python -m MODULE`` tool. Only the first: it is the costliest (the verification starts
    it first), and a second one started ahead would take a processor from it."""
    with _state.lock:
        folder, _state.recording = _state.recording, None  # only the first is noted
    if folder is None:
        return
    if shell or len(argv) < 3 or argv[1] != "-m" or not can_start_in(str(cwd)):
        _state.stale = True  # the first tool is not one to start ahead (--root elsewhere)
        return
    workdir = str(folder)
    tool_env = dict(os.environ if env is None else env)
    try:
        files = files_on_path(tool_env, workdir)
        dirs = sorted({os.path.relpath(where, workdir) for where, _, _ in os.walk(workdir)}
                      - {"."})
        output_rel = os.path.relpath(output, workdir)
    except (OSError, ValueError):
        _state.stale = True  # a plan that cannot be complete is not kept
        return
    if sum(len(data) for data in files.values()) > MAX_PLAN_BYTES:
        _state.stale = True
        return
    _state.plan = {"workdir": workdir, "parent": os.path.dirname(workdir), "dirs": dirs,
                   "files": files, "tool": {"argv": list(argv), "cwd": str(cwd),
                                            "env": tool_env, "output": output_rel}}


def finish() -> None:
    """The verification is over: a tool started ahead and not adopted is killed; the plan
    of the tool it ran first is kept for the next same command, or dropped if that tool
    cannot be started ahead. A verification that ran no tool at all (every check answered
    from the cache) marks the plan *rested*: the next same command starts nothing ahead
    (a tool started for a cached answer was 70 ms of CPU thrown away), and keeps a fresh
    plan once it runs its tool again."""
    drop_all()
    plan, _state.plan = _state.plan, None
    stale, _state.stale = _state.stale, False
    wanted, _state.wanted = _state.wanted, False
    _state.recording = None
    key, loaded = _state.key, _state.loaded
    if key is None or not wanted:
        return
    if plan is not None:
        keep(plan_path(key), {"key": key, **plan})
    elif not stale and loaded is not None and not loaded.get("rested"):
        keep(plan_path(key), {**loaded, "rested": True})
    elif stale:
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(plan_path(key))
