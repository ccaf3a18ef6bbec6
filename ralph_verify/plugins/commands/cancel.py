"""``ralph-verify cancel``: stop the session running in this project, cleanly."""

from __future__ import annotations

import contextlib
import os
import sys
import time

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser, positive_duration
from ralph_verify.errors import UsageError
from ralph_verify.loop import cancel_key
from ralph_verify.markers import hookimpl
from ralph_verify.proc import info as procinfo


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command("cancel", cancel, scopes=("cancel",),
                       help="stop the session running in this project, cleanly")
    parser.addoption("--wait", scope="cancel", type=positive_duration, default=30.0,
                     metavar="DURATION",
                     help="how long to wait for the run to stop (default 30)")


def cancel(config: Config) -> int:
    """Stop the run that holds the lock: asked through its socket (the run refuses a request
    from its agent's processes: :mod:`ralph_verify.loop.cancel_key`), else signalled when
    proven to be this project's run (see StateDir.is_our_run); ``.ralph/lock`` is data anyone
    can write."""
    import socket

    from ralph_verify.loop.state import StateDir

    state = StateDir(config.root)
    info = state.read_lock()
    local = info is not None and info.host == socket.gethostname()
    proven = info is not None and local and state.is_our_run(info)
    hook = proven and (data := state.read_state()) is not None and data.mode == "hook"
    if hook:  # a Stop hook's checks hold the lock: the loop ends once they are done
        deadline = time.monotonic() + float(config.get("wait"))
        while state.lock_holder() is not None and time.monotonic() < deadline:
            time.sleep(0.1)
    if info is None or (local and not proven) or hook:
        from ralph_verify.hookmode.session import cancel_hook_session

        stopped = cancel_hook_session(config.root)  # a loop driven by the agent's Stop hook
        if stopped is not None:
            print(stopped)
            return 0
        if info is not None and (info.pid <= 1 or procinfo.start_time(info.pid) is not None):
            raise UsageError(f"the lock names pid {info.pid}, which is not a ralph-verify run "
                             f"of this project; remove {state.lock_path} if no run is active")
        data = state.read_state()
        left = (f"; session {data.session} was left running by a run that died: "
                "'ralph-verify run --resume' continues it"
                if data is not None and data.status == "running" else "")
        print(f"no run is active in {config.root}{left}")
        return 1
    assert info is not None
    answer = cancel_key.ask(config.root) if proven else None
    if answer not in (None, "ok"):
        raise UsageError(f"the run (pid {info.pid}) refused: {answer}")
    if answer is None:  # off Linux (the key), another host, or a run that does not listen
        state.cancel_path.write_text(cancel_key.request(config.root), encoding="utf-8")
    if answer is None and proven and sys.platform != "win32":
        import signal

        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(info.pid, signal.SIGTERM)  # a single process, proven ours, pid > 1
    deadline = time.monotonic() + float(config.get("wait"))
    while state.lock_holder() is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    if state.lock_holder() is not None:
        then = ("it stops as soon as it can" if local else
                f"'ralph-verify cancel' on host {info.host} stops it")
        where = "" if local else f" on host {info.host}"
        print(f"ERROR: the run{where} (pid {info.pid}) did not stop within the wait; {then}",
              file=sys.stderr)
        return 1
    data = state.read_state()
    verdict = (data.verdict_name if data is not None else None) or "?"
    print(f"cancelled session {info.session} (pid {info.pid}) at iteration "
          f"{data.iteration if data is not None else None}; verdict {verdict}")
    return 0
