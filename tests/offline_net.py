"""A network namespace with only loopback, for agent CLIs that must make no outbound call.

The end-to-end tests of the agent CLIs claim two things: the run works offline, and
the CLI tried to reach nothing but the scripted model server. Both are proved here by
the kernel, not by watching the CLI's own logs:

- :class:`OfflineNet` creates a network namespace holding only ``lo`` (from one thread
  of the test process, so the scripted :class:`~ralph_verify.testing.server.ModelServer`
  can listen inside it) and runs commands in it with ``nsenter --net``. Nothing leaves
  the machine, whatever the CLI tries.
- Every attempt to reach a non-loopback address (a TCP connect, a DNS query, a UDP
  datagram, IPv4 or IPv6) fails in such a namespace for want of a route, and the kernel
  counts it (``Ip: OutNoRoutes``, ``Ip6OutNoRoutes``). The counters belong to the
  namespace, so :meth:`OfflineNet.outbound_attempts` is exactly what the processes run
  in it tried. Connections to 127.0.0.1 are not counted.

Creating a network namespace needs ``CAP_SYS_ADMIN`` (root, as in CI) and ``nsenter``
(util-linux): without them the fixture fails with the reason, it never skips.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import shutil
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest

from ralph_verify.testing.server import ModelServer

_CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1
T = TypeVar("T")


class NetnsError(Exception):
    """The namespace could not be created; the message says why and what to do."""


def _bring_loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


class OfflineNet:
    """One network namespace with only loopback up; :meth:`close` releases it."""

    def __init__(self) -> None:
        nsenter = shutil.which("nsenter")
        if nsenter is None:
            raise NetnsError("nsenter (util-linux) is not on PATH: install util-linux")
        self.nsenter = nsenter
        self._fd: int | None = None
        self._error: BaseException | None = None
        # unshare(CLONE_NEWNET) moves only the calling thread: a thread of our own does it,
        # keeps a descriptor on the namespace and ends; the test's other threads stay put.
        thread = threading.Thread(target=self._create, name="ralph-netns")
        thread.start()
        thread.join()
        if self._error is not None:
            raise NetnsError(f"cannot create a network namespace ({self._error}); the "
                             "offline agent tests need root or CAP_SYS_ADMIN (as in CI)")

    def _create(self) -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.unshare(_CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            _bring_loopback_up()
            self._fd = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        except BaseException as exc:  # reported by __init__ in the calling thread
            self._error = exc

    def call(self, function: Callable[[], T]) -> T:
        """``function()`` run in a thread inside the namespace (sockets it opens live there)."""
        box: list[T] = []
        errors: list[BaseException] = []

        def inside() -> None:
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                if libc.setns(self.fd, _CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
                box.append(function())
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=inside, name="ralph-netns-call")
        thread.start()
        thread.join()
        if errors:
            raise errors[0]
        return box[0]

    @property
    def fd(self) -> int:
        if self._fd is None:
            raise RuntimeError("the namespace is closed")
        return self._fd

    def prefix(self) -> list[str]:
        """The argv prefix that runs a command inside the namespace (pass :attr:`fd` on)."""
        return [self.nsenter, f"--net=/proc/self/fd/{self.fd}", "--"]

    def counters(self) -> dict[str, int]:
        """The namespace's IP counters (``/proc/net/snmp`` and ``snmp6`` as seen inside)."""
        def read() -> dict[str, int]:
            found: dict[str, int] = {}
            with open("/proc/thread-self/net/snmp", encoding="ascii") as snmp:
                lines = snmp.read().splitlines()
            for names, values in zip(lines[::2], lines[1::2], strict=False):
                head, *keys = names.split()
                found.update({head + key: int(value)
                              for key, value in zip(keys, values.split()[1:], strict=False)})
            with open("/proc/thread-self/net/snmp6", encoding="ascii") as snmp6:
                for line in snmp6:
                    key, value = line.split()
                    found[key] = int(value)
            return found

        return self.call(read)

    def outbound_attempts(self) -> int:
        """Packets the processes in the namespace tried to send off the machine."""
        counters = self.counters()
        return counters.get("Ip:OutNoRoutes", 0) + counters.get("Ip6OutNoRoutes", 0)

    def start_server(self) -> ModelServer:
        """A scripted model server listening on 127.0.0.1 inside the namespace."""
        return self.call(ModelServer().start)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


@pytest.fixture
def offline_net() -> Iterator[OfflineNet]:
    """A fresh loopback-only network namespace for one test."""
    try:
        net = OfflineNet()
    except NetnsError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield net
    finally:
        net.close()


@pytest.fixture
def offline_server(offline_net: OfflineNet) -> Iterator[ModelServer]:
    """A started scripted model server inside :func:`offline_net`'s namespace."""
    server = offline_net.start_server()
    try:
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop()
