"""Inside the sandbox of ``--sandbox-network hosts``, before the agent:
``python -I -m ralph_verify.guard.bridge SOCKET PORT -- COMMAND...``.

The sandbox's network is its own loopback, and programs expect a proxy at a TCP address, not
a unix socket: this listens on ``127.0.0.1:PORT``, hands each connection to the proxy's
socket (:mod:`.netproxy`, outside), and runs ``COMMAND`` in its own place (``exec``: the
agent keeps the process, its signals and its exit code). The listener lives in a child that
ends with the sandbox's PID namespace, when the agent's process does.
"""

from __future__ import annotations

import os
import socket
import sys
import threading

from ralph_verify.exitcode import ExitCode

#: How the bridge says the agent's program cannot run (bubblewrap's own words are
#: ``bwrap: execvp``): the sandbox's plugin names the program from it.
BRIDGE_EXEC = "ralph-verify sandbox: execvp "


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--" or not argv[1].isdigit():
        sys.stderr.write("usage: python -m ralph_verify.guard.bridge SOCKET PORT -- COMMAND\n")
        return int(ExitCode.USAGE_ERROR)
    path, port, command = argv[0], int(argv[1]), argv[3:]
    listener = socket.create_server(("127.0.0.1", port))
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # hold none of the agent's pipes open
            os.dup2(null, fd)
        try:
            _serve(listener, path)
        finally:
            os._exit(0)
    listener.close()
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"{BRIDGE_EXEC}{command[0]}: {exc.strerror}\n")
    return 127


def _serve(listener: socket.socket, path: str) -> None:
    from ralph_verify.guard.netproxy import pipe

    def forward(client: socket.socket) -> None:
        upstream = socket.socket(socket.AF_UNIX)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            upstream.close()
            return
        pipe(client, upstream)

    while True:
        client, _ = listener.accept()
        threading.Thread(target=forward, args=(client,), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
