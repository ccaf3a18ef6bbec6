"""The sandbox: the agent's processes under bubblewrap, writing only the project and their
CLI's state, the user's secrets hidden; docs/safety.md says what it shows and hides, and why."""

from __future__ import annotations

import contextlib
import fnmatch
import glob
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from ralph_verify.errors import UsageError
from ralph_verify.guard.policy import (
    DEFAULT_PUBLIC_PATTERNS,
    DEFAULT_SECRET_PATTERNS,
    HOME_SECRETS,
    SYSTEM_SECRETS,
)
from ralph_verify.redact import redact_credentials, secret_values

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
#: Per adapter, the secret variables its CLI needs to reach its model: kept, every other
#: variable whose name or value looks secret is removed (``sandbox-env`` keeps more).
AGENT_KEYS: dict[str, tuple[str, ...]] = {
    "claude": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
    "codex": ("OPENAI_API_KEY", "CODEX_API_KEY"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "qwen": ("OPENAI_API_KEY", "DASHSCOPE_API_KEY"),
    "aider": ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"),
    "opencode": ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"),
    "amp": ("AMP_API_KEY",),
    "copilot": ("COPILOT_PROVIDER_API_KEY", "COPILOT_GITHUB_TOKEN", "GH_TOKEN",
                "GITHUB_TOKEN"),
}
#: Per adapter, the hosts its CLI reaches its model at, allowed with ``--sandbox-network
#: hosts`` whatever the list (``$VAR``: the host of the URL in that variable, when set).
AGENT_HOSTS: dict[str, tuple[str, ...]] = {
    "claude": ("api.anthropic.com", "$ANTHROPIC_BASE_URL"),
    "codex": ("api.openai.com", "chatgpt.com", "auth.openai.com", "$OPENAI_BASE_URL"),
    "gemini": ("generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com",
               "oauth2.googleapis.com", "$GOOGLE_GEMINI_BASE_URL"),
    "qwen": ("dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com", "chat.qwen.ai",
             "$OPENAI_BASE_URL"),
    "aider": ("api.openai.com", "api.anthropic.com", "generativelanguage.googleapis.com",
              "openrouter.ai", "$OPENAI_API_BASE", "$OPENAI_BASE_URL", "$ANTHROPIC_BASE_URL"),
    "opencode": ("api.anthropic.com", "api.openai.com", "openrouter.ai", "opencode.ai",
                 "models.dev"),
    "amp": ("ampcode.com",),
    "copilot": ("api.githubcopilot.com", "*.githubcopilot.com", "api.github.com",
                "$COPILOT_PROVIDER_BASE_URL"),
}
#: Inside the sandbox of ``hosts``: the proxy's socket, and the bridge's port in front of it.
PROXY_SOCKET = "/tmp/.ralph-verify-proxy.sock"
PROXY_PORT = 3128
#: Where the ``ralph_verify`` package is imported from.
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
#: Variables that lead to a credential without holding one (an agent socket).
_LEADS = ("SSH_AUTH_SOCK", "GPG_AGENT_INFO")
INSTALL_HINT = "install it with 'apt-get install bubblewrap' (Debian/Ubuntu)"
#: Inside the sandbox, where the git object store is seen read-only (under the private /tmp).
OBJECTS_VIEW = "/tmp/.ralph-verify-objects"
#: Folders not searched for other projects' secret files (big, or no project lives there).
_SKIP = frozenset({"node_modules", ".git", ".venv", "venv", "__pycache__", ".cache", ".npm",
                   ".cargo", ".rustup", ".local", ".nvm", ".pyenv", ".tox", ".nox", "site-packages",
                   ".mypy_cache", ".pytest_cache", ".ruff_cache", "dist", "build", "target"})
_SCAN_DEPTH = 4
_SCAN_ENTRIES = 20_000


def probe() -> tuple[str | None, str]:
    """``(bwrap, "")`` when bubblewrap can make a sandbox here, else ``(None, why not)``."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, f"bubblewrap (bwrap) is not installed; {INSTALL_HINT}"
    try:
        probe_run = subprocess.run([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc",
                                    "/proc", "--unshare-pid", "--cap-drop", "ALL",
                                    "--die-with-parent", "--", "true"],
                                   capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"bubblewrap cannot start ({exc})"
    if probe_run.returncode != 0:
        return None, f"bubblewrap cannot create a sandbox here ({last_line(probe_run.stderr)}); " \
            f"{NAMESPACE_HINT}"
    return bwrap, ""


NAMESPACE_HINT = ("allow user namespaces (e.g. a container started with --privileged or a "
                  "seccomp profile that permits them)")


def last_line(text: str) -> str:
    return (text.strip().splitlines() or ["no message"])[-1].strip()


def check_available() -> str:
    """The ``bwrap`` program, after checking it can make a sandbox here; else a UsageError."""
    bwrap, why_not = probe()
    if bwrap is None:
        raise UsageError(f"--sandbox: {why_not}, or run without --sandbox")
    return bwrap


def writable_for(agent: str, root: Path, environ: Mapping[str, str], home: Path) -> list[Path]:
    """What the agent may write besides the project: its state folders (created when
    missing, so a first start can log in) and, for a git worktree, the repository's git
    folders (else its commits fail)."""
    for entry in STATE_DIRS.get(agent.split(":", 1)[0], ()):
        if entry.startswith("~/") and not entry.endswith(".json"):
            with contextlib.suppress(OSError):
                (home / entry[2:]).mkdir(parents=True, exist_ok=True)
    found = state_dirs(agent, environ, home)
    return found + [p for p in git_dirs(root) if p != root / ".git" and p not in found]


def git_dirs(root: Path) -> list[Path]:
    """The project's git folder, and for a worktree the repository's common one too."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return [dot_git]
    with contextlib.suppress(OSError, ValueError):
        pointer = dot_git.read_text(encoding="utf-8").strip()
        git_dir = (root / pointer.removeprefix("gitdir:").strip()).resolve()
        common = git_dir / "commondir"
        shared = (git_dir / common.read_text().strip()).resolve() if common.is_file() \
            else git_dir
        return [p for p in dict.fromkeys((git_dir, shared)) if p.is_dir()]
    return []


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


def secret_names(environ: Mapping[str, str], keep: Iterable[str]) -> list[str]:
    """The variables to remove: a secret's name (``*KEY*``, ``*TOKEN*`` …) or a value that
    holds a credential (``postgres://u:pw@h``, ``ghp_…``), and sockets that lead to keys."""
    kept = set(keep)
    return sorted(name for name, value in environ.items() if name not in kept and (
        secret_values({name: value}) or name in _LEADS or redact_credentials(value) != value))


def hidden_paths(home: Path, root: Path, extra: Iterable[Path] = ()) -> list[Path]:
    """What exists of the secrets the agent must not see: the home folder's credentials and
    history, the machine's, other projects' secret files (searched in the home folder and
    next to the project), and ``extra`` (ralph-verify's cache)."""
    found: list[str] = []
    for entry in HOME_SECRETS:
        found += glob.glob(str(home / entry), include_hidden=True)
    for entry in SYSTEM_SECRETS:
        if not entry.startswith(("/proc/", "/root/")):
            found += glob.glob(entry)
    if os.environ.get("HISTFILE"):
        found.append(os.environ["HISTFILE"])
    project = Path(os.path.realpath(root))
    for top in dict.fromkeys((home, project.parent)):
        if top != Path("/"):
            found += map(str, _secret_files(top, project))
    found += map(str, extra)
    paths = (Path(os.path.realpath(p)) for p in found if os.path.lexists(p))
    return [p for p in dict.fromkeys(paths)
            if p != project and project not in p.parents and p not in project.parents]


def _secret_files(top: Path, project: Path) -> Iterator[Path]:
    """Secret files (``.env``, keys) under ``top``, the project left out; bounded."""
    names = [p for p in DEFAULT_SECRET_PATTERNS if "/" not in p]
    public = [p for p in DEFAULT_PUBLIC_PATTERNS if "/" not in p]
    seen = 0
    for folder, dirs, files in os.walk(top):
        depth = Path(folder).relative_to(top).parts
        dirs[:] = [] if len(depth) >= _SCAN_DEPTH else [
            d for d in dirs if d not in _SKIP and Path(folder, d) != project]
        seen += len(files) + len(dirs)
        if seen > _SCAN_ENTRIES:
            return
        for name in files:
            if any(fnmatch.fnmatch(name, p) for p in names) and \
                    not any(fnmatch.fnmatch(name, p) for p in public):
                yield Path(folder, name)


def agent_hosts(agent: str, environ: Mapping[str, str]) -> list[str]:
    """The hosts ``agent``'s CLI reaches its model at (:data:`AGENT_HOSTS`)."""
    from urllib.parse import urlsplit

    hosts = []
    for entry in AGENT_HOSTS.get(agent.split(":", 1)[0], ()):
        if not entry.startswith("$"):
            hosts.append(entry)
        elif url := environ.get(entry[1:]):
            with contextlib.suppress(ValueError):  # a port that is not a number
                parts = urlsplit(url)
                name = f"[{parts.hostname}]" if ":" in (parts.hostname or "") \
                    else parts.hostname
                if name:
                    hosts.append(f"{name}:{parts.port}" if parts.port else name)
    return hosts


def bwrap_argv(bwrap: str, root: Path, *, network: str = "shared",
               writable: Sequence[Path] = (), hidden: Sequence[Path] = (),
               unset: Sequence[str] = (), status_fd: int | None = None,
               shown: Sequence[Path] = (), proxy: str | None = None) -> list[str]:
    """The argv prefix that runs a command in the sandbox: ``shown`` visible read-only under
    the private folders, ``hidden`` emptied, ``unset`` variables removed (names only: the
    command line is readable inside), ``proxy`` the socket of ``hosts``."""
    home = Path.home()
    private = [Path(p) for p in ("/tmp", "/var/tmp", "/run", home / ".cache") if os.path.isdir(p)]
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            *(word for path in private for word in ("--tmpfs", str(path))),
            "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL"]
    if proxy is not None:  # the bridge's Python and ralph-verify, wherever they are
        shown = [*shown, *{Path(p): 0 for p in (sys.prefix, sys.base_prefix, _PACKAGE_ROOT)}]
    for path in shown:
        argv += ["--ro-bind", str(path), str(path)]
    if os.path.isdir("/run/systemd/resolve"):  # /etc/resolv.conf may point there
        argv += ["--ro-bind", "/run/systemd/resolve", "/run/systemd/resolve"]
    project = Path(os.path.realpath(root))
    inside = [p for p in writable if project in Path(os.path.realpath(p)).parents]
    for path in (p for p in writable if p not in inside):
        argv += ["--bind", str(path), str(path)]
    argv += ["--bind", str(project), str(project)]
    if os.path.lexists(project / ".git"):  # a mount point cannot be renamed: `mv .git x`
        argv += ["--bind", str(project / ".git"), str(project / ".git")]
    for index, git_dir in enumerate(git_dirs(project)):
        argv += _git_binds(git_dir, f"{OBJECTS_VIEW}-{index}")
    if (project / ".ralph").is_dir():
        argv += ["--ro-bind", str(project / ".ralph"), str(project / ".ralph")]
    for path in inside:  # ``.ralph/agent``: the CLI's own state, kept in the session folder
        argv += ["--bind", str(path), str(path)]
    gone = list(private)
    for path in hidden:
        if any(path == w or w in path.parents for w in writable):
            continue  # the agent's own login (``~/.claude/.credentials.json``)
        if any(g in path.parents for g in gone):
            continue  # already out of sight
        gone.append(path)
        argv += ["--tmpfs", str(path), "--remount-ro", str(path)] if path.is_dir() \
            else ["--ro-bind", "/dev/null", str(path)]
    bridge: list[str] = []
    if network in ("none", "loopback", "hosts"):
        argv.append("--unshare-net")
    if network == "hosts" and proxy is not None:
        url = f"http://127.0.0.1:{PROXY_PORT}"
        argv += ["--ro-bind", proxy, PROXY_SOCKET]
        for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"):
            argv += ["--setenv", name, url, "--setenv", name.lower(), url]
        for name in ("NO_PROXY", "no_proxy"):  # the sandbox's own loopback, direct
            argv += ["--setenv", name, "localhost,127.0.0.1,::1"]
        bridge = [sys.executable, "-I", "-m", "ralph_verify.guard.bridge", PROXY_SOCKET,
                  str(PROXY_PORT), "--"]
    if status_fd is not None:
        argv += ["--json-status-fd", str(status_fd)]
    # ``env -u`` before bubblewrap, not its ``--unsetenv``: bubblewrap's own process is PID 1
    # in the sandbox, and its /proc/1/environ would still hold every value.
    scrub = ["env", *(word for name in unset for word in ("-u", name))] if unset else []
    return [*scrub, *argv, "--chdir", str(project), "--", *bridge]


def _git_binds(git_dir: Path, view: str) -> list[str]:
    """``config``, ``hooks``, ``info`` read-only (git outside runs code from them), the frozen
    files hidden, the object store read-only behind its side store."""
    from ralph_verify.guard.gitstore import prepare

    argv: list[str] = []
    for name in ("config", "hooks", "info"):
        if (git_dir / name).exists():
            argv += ["--ro-bind", str(git_dir / name), str(git_dir / name)]
    if (git_dir / "ralph-verify").is_dir():  # the session's frozen files
        argv += ["--tmpfs", str(git_dir / "ralph-verify"), "--remount-ro",
                 str(git_dir / "ralph-verify")]
    objects = git_dir / "objects"
    if objects.is_dir():
        side = prepare(objects, view)
        argv += ["--ro-bind", str(objects), view, "--bind", str(side), str(objects)]
    return argv


def named_paths(spec: str) -> list[Path]:
    """The paths the agent's spec names (a ``cmd:`` line's existing absolute paths, a
    ``replay:`` folder): the user chose them, so the sandbox shows them read-only."""
    kind, _, rest = spec.partition(":")
    if kind == "replay":
        folder = Path(rest).expanduser().resolve()
        return [folder] if folder.is_dir() else []
    if kind != "cmd":
        return []
    try:
        words = shlex.split(rest)
    except ValueError:
        return []
    return [Path(word) for word in words if word.startswith("/") and os.path.exists(word)]


def agent_argv(bwrap: str, root: Path, agent: str, *, network: str = "shared",
               keep: Iterable[str] = (), environ: Mapping[str, str] | None = None,
               hidden: Iterable[Path] = (), writable: Iterable[Path] = (),
               status_fd: int | None = None, shown: Sequence[Path] = (),
               proxy: str | None = None) -> list[str]:
    """The sandbox of one run of ``agent`` (the adapter's name): its state and ``writable``
    writable, secrets and ``hidden`` hidden, secret variables removed but ``keep``'s."""
    env = os.environ if environ is None else environ
    home = Path.home()
    return bwrap_argv(bwrap, root, network=network, shown=shown,
                      writable=[*writable_for(agent, root, env, home), *writable],
                      hidden=hidden_paths(home, root, hidden),
                      unset=secret_names(env, [*AGENT_KEYS.get(agent, ()), *keep]),
                      status_fd=status_fd, proxy=proxy)


def hidden_by(argv: Sequence[str], path: str) -> str | None:
    """Why ``path`` is not what the sandbox of ``argv`` shows, or None: the last mount
    over it replaced it with something empty (``/tmp``, a secret)."""
    where: str | None = None
    for index, word in enumerate(argv[:-1]):
        target = argv[index + 2] if word in ("--ro-bind", "--bind") and index + 2 < len(argv) \
            else argv[index + 1] if word == "--tmpfs" else None
        if target is not None and (path == target or path.startswith(target.rstrip("/") + "/")):
            empty = word == "--tmpfs" or argv[index + 1] == "/dev/null"
            where = target if empty else None
    return where
