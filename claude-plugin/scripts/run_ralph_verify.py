#!/usr/bin/env python3
"""Run ralph-verify for the Claude Code plugin, wherever it is installed.

Looks for, in order: $RALPH_VERIFY_COMMAND (e.g. "/path/to/venv/bin/ralph-verify"),
``ralph-verify`` on PATH, the project's .venv/ or venv/ with ralph_verify
installed, this Python. A hook must never fail Claude: when ralph-verify is
nowhere, a hook exits 0 (the Stop hook says how to install it) instead.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

HINT = ("ralph-verify is not installed where the Claude Code plugin can find it: "
        "'pip install ralph-verify', or set RALPH_VERIFY_COMMAND to its path")


def _has_module(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import ralph_verify"], capture_output=True,
                              timeout=20, stdin=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def command() -> list[str] | None:
    explicit = os.environ.get("RALPH_VERIFY_COMMAND")
    if explicit:
        return shlex.split(explicit)
    found = shutil.which("ralph-verify")
    if found:
        return [found]
    project = Path(os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())
    for venv in (".venv", "venv"):
        for python in (project / venv / "bin" / "python",
                       project / venv / "Scripts" / "python.exe"):
            if python.is_file() and _has_module(str(python)):
                return [str(python), "-m", "ralph_verify"]
    if _has_module(sys.executable):
        return [sys.executable, "-m", "ralph_verify"]
    return None


def main() -> int:
    args = sys.argv[1:]
    found = command()
    if found is None:
        if args[:1] == ["hook"]:
            if len(args) > 1 and args[1].endswith("-stop"):
                print(json.dumps({"systemMessage": HINT}))
            return 0
        print(HINT)
        return 1
    try:
        return subprocess.call([*found, *args])
    except OSError as exc:
        if args[:1] == ["hook"]:
            return 0
        print(f"{HINT} ({exc})")
        return 1


if __name__ == "__main__":
    sys.exit(main())
