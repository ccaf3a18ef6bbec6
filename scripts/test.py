"""Run the test suite: ``python3 scripts/test.py [PYTEST ARGS]``.

Creates ``.venv-test`` (once), installs ralph-verify with its test extras and the
tools its checks run, then runs pytest in parallel. Pure Python, so it works on
any OS with Python 3.10+.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-test"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def run(*args: str | os.PathLike[str]) -> None:
    print("+", " ".join(str(a) for a in args), flush=True)
    subprocess.run([str(a) for a in args], check=True, cwd=ROOT)


def main() -> int:
    if not PYTHON.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        run(PYTHON, "-m", "pip", "install", "-q", "--upgrade", "pip")
    run(PYTHON, "-m", "pip", "install", "-q", "-e", f"{ROOT}[test]")
    args = sys.argv[1:] or ["-n", "auto"]
    return subprocess.call([str(PYTHON), "-m", "pytest", *args], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
