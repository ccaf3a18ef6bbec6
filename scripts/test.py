"""Run the test suite: ``python3 scripts/test.py [PYTEST ARGS]``.

Installs Debian's chromium if it is missing (for the HTML report tests), creates
``.venv-test`` (once), installs ralph-verify with its test, otel and dask extras and the tools its
checks run, then runs pytest in parallel. The real agent CLIs (Claude Code, Codex, aider,
Gemini CLI, Qwen Code, OpenCode, Copilot CLI) are installed by the tests themselves into a
shared cache, once per machine (tests/agents_setup.py, a file lock per CLI across workers). Pure
Python, so it works on any OS with Python 3.10+.
"""

from __future__ import annotations

import os
import shutil
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


def ensure_chromium() -> None:
    """The HTML report is tested in a real headless browser: Debian's chromium.

    Installed here, before pytest starts, where apt-get is available and we are root;
    otherwise the report tests install it themselves or fail saying how to get it.
    """
    if shutil.which("chromium") or os.name == "nt":
        return
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        print("note: chromium is not installed; the HTML report tests will say how to get it",
              flush=True)
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for argv in ([apt, "update", "-q"], [apt, "install", "-y", "-q", "chromium"]):
        print("+", " ".join(argv), flush=True)
        subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)


def main() -> int:
    ensure_chromium()
    if not PYTHON.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        run(PYTHON, "-m", "pip", "install", "-q", "--upgrade", "pip")
    run(PYTHON, "-m", "pip", "install", "-q", "-e", f"{ROOT}[test,otel,dask]")
    args = sys.argv[1:] or ["-n", "auto"]
    return subprocess.call([str(PYTHON), "-m", "pytest", *args], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
