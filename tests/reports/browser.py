"""Headless Chromium for the report tests: the DOM after scripts ran, console lines, a screenshot.

Debian's ``chromium`` is installed by ``scripts/test.py`` (what ``.ci/run`` runs); when it
is missing here the first test installs it with apt-get (as root, under a lock shared by xdist
workers) and otherwise fails with what to do: a browser test never skips.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
#: Chromium logs the page's console (messages, uncaught errors) as ``INFO:CONSOLE`` lines.
_CONSOLE = re.compile(r":CONSOLE[(:]")
INSTALL_HINT = ("the HTML report tests need Debian's chromium: run 'apt-get install -y chromium' "
                "as root (.ci/run does it)")


def _install() -> None:
    apt = shutil.which("apt-get")
    if apt is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.fail(f"chromium not found and cannot be installed here (no apt-get, or not "
                    f"root): {INSTALL_HINT}", pytrace=False)
    import fcntl

    lock = Path("/tmp/ralph-verify-chromium.lock")
    with lock.open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        if shutil.which("chromium"):
            return
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for argv in ([apt, "update", "-q"], [apt, "install", "-y", "-q", "chromium"]):
            proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900,
                                  stdin=subprocess.DEVNULL)
            if proc.returncode != 0:
                pytest.fail(f"{' '.join(argv)} failed (exit {proc.returncode}): "
                            f"{(proc.stdout + proc.stderr)[-2000:]}\n{INSTALL_HINT}",
                            pytrace=False)


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None and sys.platform.startswith("linux"):
        _install()
        found = shutil.which("chromium")
    if found is None:
        pytest.fail(f"chromium not found: {INSTALL_HINT}", pytrace=False)
    return found


@dataclass
class Rendered:
    dom: str
    console: list[str]
    screenshot: Path
    stderr: str


def render(page: Path, workdir: Path, width: int = 1280, height: int = 1800) -> Rendered:
    """Load ``page`` in a fresh headless profile: dump the DOM and take a screenshot."""
    profile = workdir / "chromium-profile"
    profile.mkdir(parents=True, exist_ok=True)
    screenshot = workdir / f"{page.stem}.png"
    argv = [chromium(), *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr",
            "--v=0", f"--window-size={width},{height}", f"--screenshot={screenshot}",
            "--dump-dom", page.resolve().as_uri()]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"chromium did not finish loading {page} within 120s", pytrace=False)
    finally:
        if proc.poll() is None:  # pragma: no cover - only after an unexpected error above
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    stderr = err.decode("utf-8", "replace")
    assert proc.returncode == 0, f"chromium exit {proc.returncode}: {stderr[-3000:]}"
    console = [line for line in stderr.splitlines() if _CONSOLE.search(line)]
    return Rendered(out.decode("utf-8", "replace"), console, screenshot, stderr)
