"""``run --sandbox``: the agent's process under bubblewrap, the project its only writable place.

Linux only (``bwrap``, Debian package ``bubblewrap``). The whole file system is bound
read-only, the project read-write, ``/tmp`` is private, and the agent CLI's own state
folders (:data:`STATE_DIRS`) stay writable so it can log in and keep its sessions. The
network is shared (agents need their model's API) or off (``--sandbox-network none``):
bubblewrap cannot filter by host. Only the agent runs inside; verification runs outside.
"""

from __future__ import annotations

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
NETWORKS = ("shared", "none")
INSTALL_HINT = "install it with 'apt-get install bubblewrap' (Debian/Ubuntu)"


def check_available() -> str:
    """The ``bwrap`` program, after checking it can make a sandbox here; else a UsageError."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise UsageError(f"--sandbox needs bubblewrap (bwrap), which is not installed; "
                         f"{INSTALL_HINT}, or run without --sandbox")
    probe = subprocess.run([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                            "--unshare-pid", "--die-with-parent", "--", "true"],
                           capture_output=True, text=True, timeout=30, check=False)
    if probe.returncode != 0:
        detail = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        raise UsageError(f"--sandbox: bubblewrap cannot create a sandbox here ({detail}); "
                         "allow user namespaces (e.g. a container started with "
                         "--privileged or a seccomp profile that permits them), or run "
                         "without --sandbox")
    return bwrap


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
               writable: list[Path] | None = None) -> list[str]:
    """The argv prefix that runs a command in the sandbox (append the command)."""
    argv = [bwrap, "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--dev", "/dev",
            "--proc", "/proc", "--die-with-parent", "--unshare-pid"]
    for path in writable or []:
        argv += ["--bind", str(path), str(path)]
    project = str(Path(os.path.realpath(root)))
    argv += ["--bind", project, project, "--chdir", project]
    if network == "none":
        argv.append("--unshare-net")
    return [*argv, "--"]
