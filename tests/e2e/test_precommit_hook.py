"""``.pre-commit-hooks.yaml``: projects run ``ralph-verify check`` from the real pre-commit.

``pre-commit try-repo`` installs this repository into pre-commit's own virtual environment
(from PyPI, as a user's pre-commit would) and runs the hook on a temporary project.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph

ROOT = Path(__file__).resolve().parents[2]


def _try_repo(ralph: Ralph, home: Path) -> subprocess.CompletedProcess[str]:
    precommit = Path(sys.executable).parent / "pre-commit"
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run([str(precommit), "try-repo", str(ROOT), "ralph-verify",
                           "--all-files", "--color", "never"],
                          cwd=ralph.path, capture_output=True, text=True, env=env, timeout=900)


@pytest.mark.slow
def test_the_hook_fails_a_commit_while_a_check_fails_and_passes_it_after(
        ralph: Ralph, tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("pre-commit-home")
    ralph.makepyproject('[tool.ralph-verify]\nuntil = ["lint"]\n')
    ralph.makefile("app.py", "import os\n")
    ralph.git_init()
    failing = _try_repo(ralph, home)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "ralph-verify check" in failing.stdout and "Failed" in failing.stdout
    assert "F401" in failing.stdout

    (ralph.path / "app.py").write_text("import os\n\nprint(os.sep)\n")
    ralph.git("commit", "-qam", "use os")
    passing = _try_repo(ralph, home)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout
