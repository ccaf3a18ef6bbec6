"""A first-party plugin installs cleanly before ralph-verify is on an index (issue 25).

``plugins/ralph-verify-diffcover`` declares no dependency on ``ralph-verify`` (docs/
writing-plugins.md, "Packaging"): installed on its own into a fresh virtual environment
it resolves (with a hard dependency pip would look ``ralph-verify`` up on the index and
fail), then ralph-verify is installed from a copy of the checkout, and the plugin is
found and used. pip's wheel cache keeps it to seconds.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = "Scripts" if os.name == "nt" else "bin"
_SCRUBBED = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "RALPH_VERIFY_PLUGINS",
             "RALPH_VERIFY_DISABLE_PLUGIN_AUTOLOAD")


def _pip(env_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env_dir / BIN / "python"), "-m", "pip", "install", "-q", *args],
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})


def test_the_plugin_installs_before_ralph_verify_and_is_used(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    env_dir = tmp_path_factory.mktemp("plugin-install") / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    source = tmp_path_factory.mktemp("src") / "ralph-verify"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv*", ".git", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache",
        ".pytest_cache", "benchmarks", "node_modules", ".ralph", "tests"))
    pyproject = (source / "plugins" / "ralph-verify-diffcover" / "pyproject.toml").read_text()
    dependencies = re.search(r"^dependencies = \[(.*?)\]", pyproject, re.S | re.M)
    assert dependencies is not None
    assert not re.search(r'^\s*"ralph-verify[<>=~!; "]', dependencies.group(1), re.M), \
        "the plugin must not depend on ralph-verify: no index serves that name"
    # The plugin alone, first: nothing of it needs ralph-verify from an index.
    plugin = _pip(env_dir, str(source / "plugins" / "ralph-verify-diffcover"))
    assert plugin.returncode == 0, plugin.stderr
    host = _pip(env_dir, str(source))
    assert host.returncode == 0, host.stderr
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env["PATH"] = os.pathsep.join((str(env_dir / BIN), env.get("PATH", "")))
    listed = subprocess.run([str(env_dir / BIN / "ralph-verify"), "checks", "--json"],
                            capture_output=True, text=True, timeout=120, env=env,
                            stdin=subprocess.DEVNULL, cwd=tmp_path_factory.mktemp("project"))
    assert listed.returncode == 0, listed.stderr
    diffcover = [row for row in json.loads(listed.stdout) if row["name"] == "diffcover"]
    assert diffcover and diffcover[0]["plugin"] == "diffcover", listed.stdout
    # Used: its check runs and answers (here: no git history to diff against, an error
    # result of its own, exit 3).
    used = subprocess.run([str(env_dir / BIN / "ralph-verify"), "check", "--until",
                           "diffcover>=90"], capture_output=True, text=True, timeout=120,
                          env=env, stdin=subprocess.DEVNULL,
                          cwd=tmp_path_factory.mktemp("project"))
    assert used.returncode == 3, used
    assert "ERROR   diffcover>=90" in used.stdout and "not a git repository" in used.stdout, used
