"""The sandbox: the agent's process under bubblewrap, the project its only writable place.

Linux only (``bwrap``, Debian package ``bubblewrap``). The whole file system is bound
read-only, the project read-write, ``/tmp`` is private, and the agent CLI's own state
folders (:data:`STATE_DIRS`) stay writable so it can log in and keep its sessions. The
network is shared (agents need their model's API) or off (``--sandbox-network none``):
bubblewrap cannot filter by host. Only the agent runs inside; verification runs outside.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from ralph_verify.errors import UsageError

#: Per adapter, the folders under ``$HOME`` its CLI writes (config, login, sessions).
#: Environment variables (``$CODEX_HOME``) are used when set. Folders that do not exist
#: are skipped; nothing else in ``$HOME`` is writable.
STATE_DIRS: dict[str, tuple[str, ...]] = {
    "claude": ("~/.claude", "~/.claude.json", "~/.config/claude", "$CLAUDE_CONFIG_DIR"),
    "codex": ("$CODEX_HOME", "~/.codex"),
    "gemini": ("~/.gemini",),
    "qwen": ("~/.qwen",),
    "aider": ("~/.aider",),
    "opencode": ("~/.local/share/opencode", "~/.config/opencode", "~/.cache/opencode"),
    "amp": ("~/.config/amp", "~/.local/share/amp", "~/.cache/amp"),
    "copilot": ("~/.copilot", "~/.config/github-copilot"),
}
INSTALL_HINT = "install it with 'apt-get install bubblewrap' (Debian/Ubuntu)"


def probe() -> tuple[str | None, str]:
    """``(bwrap, "")`` when bubblewrap can make a sandbox here, else ``(None, why not)``."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, f"bubblewrap (bwrap) is not installed; {INSTALL_HINT}"
    try:
        probe_run = subprocess.run([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc",
                                    "/proc", "--unshare-pid", "--die-with-parent", "--", "true"],
                                   capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"bubblewrap cannot start ({exc})"
    if probe_run.returncode != 0:
        detail = (probe_run.stderr.strip().splitlines() or ["no message"])[-1]
        return None, (f"bubblewrap cannot create a sandbox here ({detail}); allow user "
                      "namespaces (e.g. a container started with --privileged or a seccomp "
                      "profile that permits them)")
    return bwrap, ""


def check_available() -> str:
    """The ``bwrap`` program, after checking it can make a sandbox here; else a UsageError."""
    bwrap, why_not = probe()
    if bwrap is None:
        raise UsageError(f"--sandbox: {why_not}, or run without --sandbox")
    return bwrap


def writable_for(agent: str, root: Path, environ: Mapping[str, str], home: Path) -> list[Path]:
    """What the agent may write besides the project: its state folders (created when
    missing, so a first start can log in) and, for a git worktree, the repository's git
    folder (else its commits fail)."""
    for entry in STATE_DIRS.get(agent.split(":", 1)[0], ()):
        if entry.startswith("~/") and not entry.endswith(".json"):
            with contextlib.suppress(OSError):
                (home / entry[2:]).mkdir(parents=True, exist_ok=True)
    found = state_dirs(agent, environ, home)
    dot_git = root / ".git"
    if dot_git.is_file():
        with contextlib.suppress(OSError, ValueError):
            pointer = dot_git.read_text(encoding="utf-8").strip()
            git_dir = (root / pointer.removeprefix("gitdir:").strip()).resolve()
            common = git_dir / "commondir"
            shared = (git_dir / common.read_text().strip()).resolve() if common.is_file() \
                else git_dir
            found += [p for p in (git_dir, shared) if p.exists() and p not in found]
    return found


def state_dirs(agent: str, environ: Mapping[str, str], home: Path) -> list[Path]:
    """The existing state folders of ``agent`` (its name before ``:``)."""
    found: list[Path] = []
    for entry in STATE_DIRS.get(agent.split(":", 1)[0], ()):
        if entry.startswith("$"):
            value = environ.get(entry[1:], "")
            if not value:
                continue
            path = Path(value)
        else:
            path = home / entry[2:] if entry.startswith("~/") else Path(entry)
        if path.exists() and path not in found:
            found.append(path)
    return found


def bwrap_argv(bwrap: str, root: Path, *, network: str = "shared",
               writable: list[Path] | None = None, private_tmp: bool = True) -> list[str]:
    """The argv prefix that runs a command in the sandbox (append the command).

    ``private_tmp``: an empty ``/tmp`` of its own (``--sandbox``); else the host's ``/tmp``
    stays shared and writable (the ``auto`` default: agents' scripts, tools' and test runs'
    scratch files live there)."""
    tmp = ["--tmpfs", "/tmp"] if private_tmp else ["--bind", "/tmp", "/tmp"]
    argv = [bwrap, "--ro-bind", "/", "/", *tmp, "--dev", "/dev",
            "--proc", "/proc", "--die-with-parent", "--unshare-pid"]
    for path in writable or []:
        argv += ["--bind", str(path), str(path)]
    project = str(Path(os.path.realpath(root)))
    argv += ["--bind", project, project, "--chdir", project]
    if network == "none":
        argv.append("--unshare-net")
    return [*argv, "--"]
