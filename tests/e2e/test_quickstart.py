"""The README's quick start is one copy-paste from an empty folder to a finished loop
(issue 25): ``init --commit`` leaves a tree ``run`` accepts, and a ``replay:`` agent
finishes the task offline. The block is run as written, by bash, in an empty folder."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- quick start: run as is by tests/e2e/test_quickstart.py -->"


def quick_start() -> str:
    text = README.read_text(encoding="utf-8")
    assert MARKER in text, "the README lost its quick start"
    block = re.search(r"```sh\n(.*?)```", text[text.index(MARKER):], re.S)
    assert block is not None
    return block.group(1)


def test_the_quick_start_runs_from_an_empty_folder_to_a_finished_loop(tmp_path: Path) -> None:
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
           "GIT_AUTHOR_NAME": "you", "GIT_AUTHOR_EMAIL": "you@example.invalid",
           "GIT_COMMITTER_NAME": "you", "GIT_COMMITTER_EMAIL": "you@example.invalid",
           "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    env.pop("NO_COLOR", None)
    done = subprocess.run(["bash", "-e", "-c", quick_start()], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done
    assert "committed: " in done.stdout and "verdict: complete" in done.stdout, done.stdout
    assert (tmp_path / "demo" / "add.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_init_without_commit_says_the_exact_command(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    done = subprocess.run([sys.executable, "-m", "ralph_verify", "init", "--yes"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done
    assert ("not committed yet ('ralph-verify run' wants a clean tree): git add "
            "pyproject.toml PROMPT.md .gitignore && git commit -m 'ralph-verify init'") \
        in done.stdout, done.stdout
