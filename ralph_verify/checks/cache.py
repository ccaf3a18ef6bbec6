"""The verification cache: a stored result stands in for a run only if nothing that could
change it changed, so its key is wide and built from content, never times (tree, outside
configs, environment, interpreter, distributions, settings, specs)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ralph_verify.checks.api import CheckResult
from ralph_verify.project.caches import (
    CACHE_FOLDERS,
    project_key,
    user_cache_dir,
)
from ralph_verify.project.snapshot import digest, is_file, walk_files
from ralph_verify.state_files import write_text_atomic

#: Config files a tool finds in the folders above the project root.
PARENT_CONFIGS = ("pyproject.toml", "ruff.toml", ".ruff.toml", "mypy.ini", ".mypy.ini",
                  "setup.cfg", "tox.ini", "pytest.ini", ".pytest.ini", ".coveragerc",
                  "conftest.py", ".editorconfig")

#: Environment variables that change from one shell command to the next and that no
#: check reads (pytest sets ``PYTEST_CURRENT_TEST`` itself); every other one is in the key.
VOLATILE_ENV = frozenset({"PYTEST_CURRENT_TEST", "_", "OLDPWD", "PWD", "SHLVL", "COLUMNS",
                          "LINES", "WINDOWID",
                          "TERM_SESSION_ID", "SECURITYSESSIONID", "SSH_AUTH_SOCK",
                          "SSH_AGENT_PID", "SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY",
                          "GPG_AGENT_INFO", "DISPLAY", "XAUTHORITY", "TMUX_PANE", "STY",
                          "PS1", "PS2", "PROMPT_COMMAND", "HISTFILE"})

_FORMAT = 1


def _sha(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def tree_digest(root: Path) -> str:
    """Every file under ``root`` (outside :data:`CACHE_FOLDERS` and virtual environments):
    its path and content hash (a link's target). Bytecode is left out: it is not a source."""
    sha = hashlib.sha256()
    top = os.fspath(root)
    for rel in walk_files(root, CACHE_FOLDERS):
        if rel.endswith((".pyc", ".pyo")):
            continue
        path = os.path.join(top, rel)
        try:
            content = digest(path) if is_file(path) else f"link:{os.readlink(path)}"
        except OSError as exc:
            content = f"unreadable:{type(exc).__name__}"
        sha.update(f"{rel}\0{content}\n".encode("utf-8", "surrogateescape"))
    return sha.hexdigest()


def _file_digest(path: Path) -> str | None:
    try:
        return digest(path)
    except OSError:
        return None


def outside_configs(root: Path) -> dict[str, str | None]:
    """Config files above the root and in the user's config folders, by content."""
    home = Path.home()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    found = [folder / name for folder in root.resolve().parents for name in PARENT_CONFIGS]
    found += [xdg / "ruff" / "ruff.toml", xdg / "ruff" / ".ruff.toml",
              xdg / "ruff" / "pyproject.toml", xdg / "mypy" / "config", home / ".mypy.ini",
              home / ".config" / "mypy" / "config", home / ".coveragerc"]
    return {str(path): _file_digest(path) for path in found if path.exists()}


def environment() -> dict[str, str]:
    """The environment variables of the key (tools read ``PYTEST_ADDOPTS``, ``COVERAGE_*``,
    ``MYPY_*``, ``RUFF_*``, ``PYTHONPATH``; tests may read any)."""
    return {name: value for name, value in os.environ.items() if name not in VOLATILE_ENV}


def site_folders(python: str) -> list[str]:
    """The interpreter's ``sys.path`` folders."""
    if os.path.abspath(python) == os.path.abspath(sys.executable):
        return list(sys.path)
    try:
        out = subprocess.run([python, "-c", "import json, sys; print(json.dumps(sys.path))"],
                             capture_output=True, text=True, timeout=60, check=True,
                             stdin=subprocess.DEVNULL).stdout
        return [str(p) for p in json.loads(out)]
    except (OSError, subprocess.SubprocessError, ValueError):
        return []


def distributions(folders: Iterable[str], root: Path) -> list[object]:
    """What is installed in ``folders``: entry names (with versions), ``.pth`` and
    ``.egg-link`` contents, and the content of editable and path installs outside ``root``."""
    described: list[object] = []
    outside: set[Path] = set()
    seen: set[str] = set()
    queue = [folder for folder in dict.fromkeys(folders)
             if Path(folder).name in ("site-packages", "dist-packages")]
    while queue:
        folder = queue.pop(0)
        if folder in seen:
            continue
        seen.add(folder)
        base = Path(folder)
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        described.append([folder, names])
        for name in names:
            path = base / name
            if name.endswith((".pth", ".egg-link")):
                text = _read(path)
                described.append([name, text])
                for named in _paths_in(text):
                    if _is_site_folder(named):
                        queue.append(str(named))
                    else:
                        outside.add(named)
            elif name.endswith(".dist-info"):
                outside.update(_editable_source(path / "direct_url.json"))
    resolved_root = root.resolve()
    for path in sorted(outside):
        if path.is_dir() and not path.resolve().is_relative_to(resolved_root):
            described.append([str(path), tree_digest(path)])
    return described


def _is_site_folder(path: Path) -> bool:
    try:
        with os.scandir(path) as entries:
            return any(entry.name.endswith(".dist-info") for entry in entries)
    except OSError:
        return False


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8", "replace")
    except OSError:
        return ""


def _paths_in(text: str) -> list[Path]:
    lines = (line.strip() for line in text.splitlines())
    return [Path(line) for line in lines
            if line and not line.startswith(("#", "import ")) and os.path.isabs(line)]


def _editable_source(direct_url: Path) -> list[Path]:
    try:
        data: Any = json.loads(direct_url.read_text("utf-8"))
    except (OSError, ValueError):
        return []
    url = data.get("url", "") if isinstance(data, dict) else ""
    if not url.startswith("file://"):
        return []
    return [Path(unquote(urlparse(url).path))]


def interpreter(python: str) -> list[object]:
    """The interpreter file: its path, real path, size and content time."""
    real = os.path.realpath(python)
    try:
        stat = Path(real).stat()
    except OSError:
        return [python, real, None]
    return [python, real, stat.st_size, stat.st_mtime_ns]


def store_path(root: Path, key: str) -> Path:
    return user_cache_dir() / "verifications" / project_key(root) / f"{key}.json"


def load(root: Path, key: str) -> CheckResult | None:
    """The result stored under ``key``, or None (none, unreadable, another format)."""
    try:
        data = json.loads(store_path(root, key).read_text("utf-8"))
        if data.get("format") != _FORMAT or data.get("key") != key:
            return None
        return CheckResult.from_json(data["result"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save(root: Path, key: str, result: CheckResult) -> None:
    """Store ``result`` under ``key`` (atomically; a failure to write only costs a rerun)."""
    path = store_path(root, key)
    try:
        write_text_atomic(path, json.dumps({"format": _FORMAT, "key": key,
                                            "result": result.to_json()}))
        _prune(path.parent)
    except OSError:
        pass


#: Stored results kept per project: the newest ones (a loop's trees, a few branches).
KEEP = 200


def _prune(folder: Path) -> None:
    """Drop the oldest results once a project has more than :data:`KEEP`."""
    entries = list(folder.glob("*.json"))
    if len(entries) <= KEEP:
        return

    def age(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    for path in sorted(entries, key=age)[: len(entries) - KEEP // 2]:
        path.unlink(missing_ok=True)
