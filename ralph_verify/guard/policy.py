"""What the guard protects (:class:`Policy`), where a path lands against it, and what a rule
answers (:class:`Refusal`)."""

from __future__ import annotations

import fnmatch
import glob
import os
import pwd
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ralph_verify.guard.command import FOUND, as_fnmatch

DEFAULT_SECRET_PATTERNS: tuple[str, ...] = (
    ".env", ".env.*", "*.env", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks",
    "*.keystore", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_*_sk", ".netrc", "_netrc",
    ".pgpass", ".git-credentials", ".pypirc", ".npmrc", "credentials", "credentials.json",
    "*.tfvars", "*.tfstate", "*.tfstate.backup", ".htpasswd", "secrets.yaml", "secrets.yml",
    "secrets.json", "secrets.toml", "service-account*.json", "*service_account*.json",
    "master.key", ".my.cnf",
    "*/.ssh/*", "*/.aws/*", "*/.gnupg/*", "*/.config/gcloud/*", "*/.kube/config",
    "*/.docker/config.json", "*/.azure/*",
)
#: Credential files and folders of the home folder (relative to it), and shell history.
HOME_SECRETS: tuple[str, ...] = (
    ".aws", ".ssh", ".gnupg", ".azure", ".kube", ".docker", ".config/gcloud", ".config/gh",
    ".config/hub", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".config/pip",
    ".pip/pip.conf", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
    ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
    ".composer/auth.json", ".config/composer/auth.json", ".terraform.d", ".terraformrc",
    ".vault-token", ".config/sops", ".config/age", ".oci", ".bluemix", ".config/hcloud",
    ".config/rclone", ".s3cfg", ".boto", ".databrickscfg", ".config/doctl", ".netrc",
    ".git-credentials", ".config/git/credentials", ".password-store", ".local/share/keyrings",
    ".config/op", ".op", ".config/Bitwarden CLI", ".config/heroku", ".fly", ".config/gh-copilot",
    ".local/share/fish/fish_history", ".histfile", ".*_history", ".cache/ralph-verify",
    ".config/github-copilot", ".claude/.credentials.json", ".codex/auth.json",
    ".config/containers/auth.json", ".config/helm/registry", ".config/cloudflare",
    ".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
    ".thunderbird", ".local/share/recently-used.xbel", ".my.cnf", ".huggingface",
    ".cache/huggingface/token", ".kaggle", ".config/glab-cli", ".config/netlify",
)
#: Secrets of the machine (absolute patterns).
SYSTEM_SECRETS: tuple[str, ...] = (
    "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers",
    "/etc/sudoers.d/*", "/run/secrets/*", "/var/run/secrets/*", "/etc/ssh/ssh_host_*_key",
    "/root/*", "/proc/*/environ", "/proc/*/mem", "/proc/*/cmdline", "/etc/kubernetes/*",
    "/etc/rancher/*", "/etc/wireguard/*", "/etc/NetworkManager/system-connections/*",
    "/etc/*keytab", "/etc/gitlab-runner/*", "/var/lib/*/secrets/*", "/etc/ssl/private/*",
    "/etc/ipsec.secrets", "/etc/openvpn/*", "/tmp/krb5cc*",
)
#: Disks, partitions and memory: read raw, they hold every file and process of the machine,
#: its secrets and other users' among them.
DISK = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|loop|md|dm-|mapper/|disk/|sr|fd\d|"
                  r"mem$|kmem$|port$)")
#: The home's own dot-files and dot-folders that hold no credentials (a shell's and an
#: editor's settings, caches, tool chains); every other one is private to its program.
HOME_PUBLIC: tuple[str, ...] = (
    ".bashrc", ".bash_profile", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv",
    ".gitconfig", ".gitignore*", ".vimrc", ".inputrc", ".tmux.conf", ".editorconfig",
    ".condarc", ".hushlogin", ".selected_editor", ".ssh", ".cache", ".local", ".npm", ".rustup",
    ".cargo", ".pyenv", ".nvm", ".gradle", ".m2", ".vscode*", ".vim", ".oh-my-zsh", ".conda",
    ".deno", ".bun", ".sdkman", ".asdf", ".volta", ".rbenv", ".rvm", ".ghcup", ".dotnet",
    ".gem", ".bundle", ".virtualenvs", ".nix-profile", ".ipython", ".jupyter", ".pub-cache",
    ".config/git", ".config/nvim", ".config/fish", ".config/pip", ".config/uv", ".venv",
    ".jenv", ".goenv", ".nodenv", ".poetry", ".pixi", ".julia*", ".elan", ".opam", ".stack",
    ".cabal", ".android", ".java", ".yarn", ".npm-global", ".node-gyp", ".mix", ".hex",
    ".kotlin", ".konan", ".swiftpm", ".platformio", ".bash_aliases", ".bash_completion",
    ".dircolors", ".screenrc", ".nanorc", ".psqlrc", ".sqliterc", ".irbrc", ".pdbrc",
    ".Rprofile", ".gdbinit", ".lldbinit", ".zcompdump*", ".tmux", ".zsh", ".config/ruff",
    ".config/black", ".config/flake8", ".config/mypy", ".config/yamllint", ".config/pycodestyle",
    ".pylintrc", ".clang-format", ".clang-tidy", ".prettierrc*", ".eslintrc*", ".shellcheckrc",
    ".ripgreprc", ".rgignore", ".fdignore",
)
DEFAULT_PUBLIC_PATTERNS: tuple[str, ...] = (
    ".env.example", ".env.sample", ".env.template", ".env.dist", "*.pub", "*/.ssh/known_hosts",
    "*/.ssh/config",
)
DEFAULT_METADATA_HOSTS: tuple[str, ...] = (
    "169.254.169.254", "169.254.170.2", "169.254.169.123", "fd00:ec2::254",
    "metadata.google.internal", "metadata.goog", "100.100.100.200", "2852039166",
    "0xa9fea9fe", "0251.0376.0251.0376", "instance-data.ec2.internal",
)

@dataclass(frozen=True)
class Refusal:
    """Why a tool call is refused; ``reason`` is what the model reads."""

    rule: str
    reason: str
    #: ``deny``, or ``ask`` (the user decides) for what the guard cannot read.
    decision: str = "deny"


@dataclass(frozen=True)
class Policy:
    """The project and the rules in force."""

    root: Path
    cwd: Path | None = None
    disabled: frozenset[str] = frozenset()
    allow_paths: tuple[Path, ...] = ()
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    public_patterns: tuple[str, ...] = DEFAULT_PUBLIC_PATTERNS
    metadata_hosts: tuple[str, ...] = DEFAULT_METADATA_HOSTS
    session_branch_prefix: str = "ralph/"
    home: Path = field(default_factory=Path.home)
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    #: Hosts in private ranges that may be reached (names, addresses, CIDR ranges).
    allow_hosts: tuple[str, ...] = ()
    #: Commands let through whatever they do: patterns (``fnmatch``) matched against one
    #: command's words as bash would pass them (``docker system prune *``).
    allow_commands: tuple[str, ...] = ()
    #: Refuse requests to this machine (localhost, 127.0.0.1) too.
    refuse_localhost: bool = False
    #: Seconds the guard may spend on one call; past it the call is refused.
    budget: float = 2.0


def cd_target(args: list[str], cwd: Path | None, policy: Policy) -> Path | None:
    """The folder ``cd ARGS`` moves to; ``None`` for ``cd -`` or one it cannot tell."""
    targets = [a for a in args if not a.startswith("-") or a == "-"]
    if not targets:
        return policy.home
    if targets[0] == "-":
        return None
    return resolve(targets[0], cwd, policy)


def resolve(path: str, cwd: Path | None, policy: Policy,
            follow_last: bool = True) -> Path | None:
    """An absolute, normalised path; ``None`` when it depends on something unknown."""
    if "$(...)" in path or "\0" in path:
        return None
    expanded = expand_tilde(path, policy)
    if expanded is None:
        return None
    path = expanded
    if "$" in path:
        # ``$PWD`` is unknown here: the parser substitutes it until a ``cd`` changes it.
        path = re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?",
                      lambda m: "\0" if m.group(1) in ("PWD", "OLDPWD")
                      else policy.environ.get(m.group(1), "\0"), path)
        if "\0" in path or "$" in path:
            return None
    candidate = Path(path)
    if not candidate.is_absolute():
        if cwd is None:
            return None
        candidate = cwd / candidate
    normal = Path(os.path.normpath(candidate))
    try:  # a link we may not follow (``/proc/1/cwd``) stays as written: outside the project
        if follow_last:
            return Path(os.path.realpath(normal))
        parent = Path(os.path.realpath(normal.parent))
    except OSError:
        return normal
    return parent if normal.name in ("", ".", "..") else parent / normal.name


def expand_tilde(word: str, policy: Policy) -> str | None:
    """``word`` with ``~`` or ``~user`` spelt out (``None``: no such user, or ``~+``/``~-``)."""
    if not word.startswith("~"):
        return word
    tilde, _, tail = word.partition("/")
    try:
        folder = policy.home if tilde == "~" else Path(pwd.getpwnam(tilde[1:]).pw_dir)
    except (KeyError, ValueError):
        return None
    return str(folder / tail)


def holds_secrets(path: Path | None, policy: Policy) -> bool:
    """A folder that holds the user's or the machine's secrets below it: the root, the
    home folder and what contains it, ``/root``. Searched or archived whole, it leaks them."""
    if path is None:
        return False
    home = real(policy.home)
    if home in path.parents and path.relative_to(home).as_posix() in _SECRET_PARENTS:
        return True  # ``~/.config``: gcloud's and gh's keys are in it
    return path == home or path in home.parents or path in (Path("/"), Path("/root"),
                                                            Path("/home"), Path("/Users"))


_SECRET_PARENTS = frozenset(p.rsplit("/", i)[0] for p in HOME_SECRETS
                            for i in range(1, p.count("/") + 1))


@lru_cache(maxsize=256)
def real(path: Path) -> Path:
    """Where the policy's own folders really are, looked up once (at each word it cost most
    of a decision)."""
    return Path(os.path.realpath(path))


def is_inside(path: Path | None, policy: Policy) -> bool:
    if path is None:
        return False
    roots = [real(policy.root), *(real(p) for p in policy.allow_paths)]
    return any(path == root or root in path.parents for root in roots)


#: Scratch space every program may use; ``TMPDIR`` is added from the environment.
TEMP_ROOTS: tuple[str, ...] = ("/tmp", "/var/tmp")
#: The first name below a temp folder that only the agent's own files can match: a fixed
#: start that is not only dots (``x``, ``pytest-*``, ``.cache-*``), never ``*``, ``.*``,
#: ``[a-z]*``, ``?*`` or whatever ``find`` yields: those match anyone's files and sockets.
_OWN_NAME = re.compile(r"\.*(?!" + re.escape(FOUND) + r")[^./*?\[]")


def writable(path: Path | None, policy: Policy, word: str = "", cwd: Path | None = None) -> bool:
    """Inside the project, or scratch: a ``word`` naming a temp folder (``/tmp/x``,
    ``$TMPDIR/x``, ``/tmp/pytest-*``, ``x`` in ``cwd`` /tmp; not the folder itself nor a glob
    that can match any name in it) that lands below one, away from the home folder and the
    project's surroundings. A way out through ``..`` or a link is never scratch."""
    if is_inside(path, policy):
        return True
    if cwd is not None and word and not word.startswith(("/", "~", "$")):
        word = f"{cwd}/{word}"  # ``cwd`` is real: links on the way to it were followed
    tmpdir = policy.environ.get("TMPDIR", "").rstrip("/")
    word = re.sub(r"^\$\{?TMPDIR\}?/", tmpdir + "/", word) if tmpdir else word
    if path is None or ".." in word.split("/"):
        return False
    home, root = real(policy.home), real(policy.root)
    # Below the deepest temp folder it names (``$TMPDIR`` may lie in /tmp), the word as
    # written, no link followed on the way, must match where it lands.
    top = next((t for t in sorted((*TEMP_ROOTS, tmpdir), key=len, reverse=True)
                if t.startswith("/") and f"{word}/".startswith(t + "/")), "")
    rest = os.path.normpath(word[len(top) + 1:]) if top else "."
    pattern = f"{glob.escape(str(real(Path(top or '/'))))}/{rest}".replace(FOUND, "*")
    return bool(_OWN_NAME.match(rest)) and fnmatch.fnmatchcase(
        str(path), as_fnmatch(pattern)) and not (
        path == home or home in path.parents or path in home.parents or
        root.parent in path.parents)


def is_secret(path: Path | None, policy: Policy) -> bool:
    if path is None:
        return False
    text, name = path.as_posix(), path.name
    public = _patterns(policy.public_patterns)
    if public[0].match(name) or public[1].match(text):
        return False
    if _patterns(SYSTEM_SECRETS)[1].match(text) or DISK.match(text):
        return True
    home = real(policy.home)
    if home in path.parents:
        relative = path.relative_to(home).as_posix()
        if _home_secret(relative):
            return True
    # A folder of secrets (``~/.ssh``) is a secret too.
    by_name, by_path = _patterns(policy.secret_patterns)
    return bool(by_name.match(name) or by_path.match(text) or by_path.match(text + "/x"))


@lru_cache(maxsize=64)
def _patterns(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Patterns without ``/`` (matched against a name) and with one (against the whole
    path), each as one compiled regex: a decision checks many words against many patterns."""
    def union(found: list[str]) -> re.Pattern[str]:
        return re.compile("|".join(fnmatch.translate(p) for p in found) or r"(?!)")

    return union([p for p in patterns if "/" not in p]), union([p for p in patterns
                                                               if "/" in p])


@lru_cache(maxsize=1024)
def _home_secret(relative: str) -> bool:
    first = relative.split("/", 1)[0]
    if any(relative == p or relative.startswith(p + "/") or fnmatch.fnmatchcase(first, p)
           for p in HOME_SECRETS):
        return True
    # Any other program's dot-file or dot-folder (``~/.sentryclirc``, ``~/.netlify/``,
    # ``~/.config/stripe/``), and a dot-file in any folder (``~/runner/.credentials``).
    owner = "/".join(relative.split("/", 2)[:2]) if first == ".config" else first
    hidden = first.startswith(".") and not any(
        fnmatch.fnmatchcase(owner, p) or fnmatch.fnmatchcase(first, p) for p in HOME_PUBLIC)
    return (hidden and owner != ".config") or (relative.rsplit("/", 1)[-1].startswith(
        ".") and "/" in relative and not first.startswith("."))


def session_branch(branch: str | None, policy: Policy) -> bool:
    return bool(branch) and bool(policy.session_branch_prefix) and \
        str(branch).startswith(policy.session_branch_prefix)


def branch_text(branch: str | None) -> str:
    return f"branch {branch!r}" if branch else "a detached HEAD"


def current_branch(start: Path) -> str | None:
    """The branch checked out at ``start`` (read from ``.git/HEAD``; no git process)."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():
                pointer = dot_git.read_text(encoding="utf-8").strip()
                if not pointer.startswith("gitdir:"):
                    return None
                git_dir = (folder / pointer[len("gitdir:"):].strip()).resolve()
            elif dot_git.is_dir():
                git_dir = dot_git
            else:
                continue
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        prefix = "ref: refs/heads/"
        return head[len(prefix):] if head.startswith(prefix) else None
    return None
