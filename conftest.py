"""Test-suite wiring: the ``ralph`` fixture and process hygiene."""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = ["ralph_verify.testing"]

#: Sample projects that tests copy and run ralph-verify on; not part of our suite.
collect_ignore = ["tests/example_projects"]

_MARK = "RALPH_VERIFY_TEST_MARK"


def _marked_processes(mark: str) -> list[str]:
    """Processes (other than us) whose environment carries this test's mark."""
    found = []
    needle = f"{_MARK}={mark}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes():
                found.append(f"{entry.name}: {(entry / 'cmdline').read_bytes()!r}")
        except OSError:
            continue
    return found


@pytest.fixture(autouse=True, scope="session")
def private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """ralph-verify's caches (bytecode prefix, mypy) go to a temporary folder, not ~/.cache."""
    saved = os.environ.get("RALPH_VERIFY_CACHE_DIR")
    os.environ["RALPH_VERIFY_CACHE_DIR"] = str(tmp_path_factory.mktemp("ralph-verify-cache"))
    yield
    if saved is None:
        os.environ.pop("RALPH_VERIFY_CACHE_DIR", None)
    else:
        os.environ["RALPH_VERIFY_CACHE_DIR"] = saved


@pytest.fixture(autouse=True)
def no_process_left_behind() -> Iterator[None]:
    """Every process a test starts (tools, agents, servers) must be gone when it ends."""
    if not sys.platform.startswith("linux"):
        yield
        return
    mark = uuid.uuid4().hex
    os.environ[_MARK] = mark
    try:
        yield
    finally:
        del os.environ[_MARK]
    deadline = time.monotonic() + 5
    left = _marked_processes(mark)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _marked_processes(mark)
    assert not left, f"the test left processes behind: {left}"
