"""Who may end a run ``cancelled``: the user's ``ralph-verify cancel``, never the agent.

On Linux the run listens on an abstract Unix socket and the kernel names the peer
(``SO_PEERCRED``): a request from a process under the run is refused. Elsewhere only a
``.ralph/cancel`` holding a random key from the user's cache is honoured."""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from ralph_verify.proc.info import ancestry

#: Whether the kernel names a Unix socket's peer: the run then listens, and issues no key.
PEERCRED = sys.platform == "linux" and hasattr(socket, "SO_PEERCRED")
_POLL_S = 0.2

#: Said when a cancel file without the key is found (and removed).
FORGED = ("ignored .ralph/cancel: it was not written by 'ralph-verify cancel' (only the "
          "user's 'ralph-verify cancel' ends a session this way)")


def outside_file(root: Path, folder: str, suffix: str,
                 environ: Mapping[str, str] | None = None) -> Path:
    """A file of the project at ``root`` kept outside it, in the user's ralph-verify folder
    (``$RALPH_VERIFY_CACHE_DIR``, else ``$XDG_CACHE_HOME/ralph-verify``): ``folder/HASH.suffix``."""
    env = os.environ if environ is None else environ
    base = env.get("RALPH_VERIFY_CACHE_DIR") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ralph-verify")
    project = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return Path(base) / folder / f"{project}.{suffix}"


def key_path(root: Path, environ: Mapping[str, str] | None = None) -> Path:
    """Where the key of the project at ``root`` is kept, outside the project."""
    return outside_file(root, "cancel", "key", environ)


def issue(root: Path) -> None:
    """A fresh key for the session starting now (the last one's no longer counts); none
    where the run listens (:data:`PEERCRED`): no cancel file is honoured there."""
    path = key_path(root)
    if PEERCRED:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path.with_suffix(".tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        import secrets  # a session's start only: not at every command's start-up

        handle.write(secrets.token_hex(16))
    os.replace(path.with_suffix(".tmp"), path)


def _key(root: Path, environ: Mapping[str, str] | None = None) -> str | None:
    try:
        text = key_path(root, environ).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def request(root: Path, environ: Mapping[str, str] | None = None) -> str:
    """What ``ralph-verify cancel`` writes into ``.ralph/cancel``."""
    key = _key(root, environ)
    return f"cancel requested by pid {os.getpid()}\n" + (f"key {key}\n" if key else "")


def genuine(root: Path, cancel_file: Path) -> bool:
    """Whether ``cancel_file`` was written by ``ralph-verify cancel`` for this session."""
    key = _key(root)
    try:
        text = cancel_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return key is not None and f"key {key}" in text.splitlines()


def address(root: Path) -> str:
    """The abstract socket the run of the project at ``root`` listens on (Linux)."""
    return "\0ralph-verify-cancel/" + hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:32]


def refusal(pid: int, uid: int) -> str:
    """Why a request from process ``pid`` (user ``uid``) is not the user's ('': it is)."""
    if uid not in (os.getuid(), 0):
        return f"pid {pid} runs as another user"
    chain = [found for found, _ in ancestry(pid)] if pid > 0 else []
    if not chain:
        return f"pid {pid} cannot be read, so it cannot be told apart from the agent's processes"
    if os.getpid() in chain:
        return (f"pid {pid} runs under this run, as the agent and everything it starts do: only "
                "the user's 'ralph-verify cancel' ends the run")
    return ""


@contextlib.contextmanager
def listening(root: Path, accept: Callable[[int], None],
              refuse: Callable[[str], None]) -> Iterator[None]:
    """While inside, a request from the user's ``ralph-verify cancel`` calls ``accept(pid)``;
    one from a process under this run calls ``refuse(why)`` (nothing off Linux)."""
    if not PEERCRED:
        yield
        return
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(address(root))
    except OSError as exc:
        server.close()
        refuse(f"'ralph-verify cancel' cannot reach this run ({exc.strerror}); Ctrl-C or "
               "SIGTERM stop it")
        yield
        return
    server.listen(4)
    server.settimeout(_POLL_S)
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
                pid, uid = int.from_bytes(creds[:4], sys.byteorder), \
                    int.from_bytes(creds[4:8], sys.byteorder)
                why = refusal(pid, uid)
                with contextlib.suppress(OSError):
                    conn.sendall(f"{why or 'ok'}\n".encode())
            if why:
                refuse(f"refused a cancel request: {why}")
            else:
                accept(pid)

    thread = threading.Thread(target=serve, name="ralph-cancel-listen", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=2 * _POLL_S + 1)
        server.close()


def ask(root: Path) -> str | None:
    """The run's answer to this process's cancel request: ``ok``, or why it refused;
    ``None`` when no run of the project listens (off Linux, or a run of an older version)."""
    if not PEERCRED:
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        try:
            sock.connect(address(root))
            return sock.makefile(encoding="utf-8").readline().strip() or None
        except OSError:
            return None
