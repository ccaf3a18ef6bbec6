"""Commands run from other commands' arguments, settings and variables (``git -c
core.pager=CMD``, ``GIT_SSH_COMMAND``, ``trap``, ``sed e``): handed back as shell lines to judge."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from ralph_verify.guard.families import git_sub
from ralph_verify.guard.words import skip_options

#: Variables whose value is a command line some program runs.
PROGRAM_VARIABLES = frozenset({
    "GIT_SSH_COMMAND", "GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL",
    "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
    "GIT_PROXY_COMMAND", "PROMPT_COMMAND", "LESSOPEN", "LESSCLOSE", "MANPAGER",
    "SYSTEMD_PAGER", "BROWSER", "GIT_SSH_VARIANT"})
#: Variables whose value is a file or folder of code some program loads or runs.
CODE_PATH_VARIABLES = frozenset({
    "GIT_SSH", "BASH_ENV", "ENV", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "LD_PRELOAD", "LD_AUDIT", "ZDOTDIR", "PYTHONSTARTUP"})
#: git settings whose value is a command git runs (judged like any command).
GIT_COMMAND_KEYS = re.compile(
    r"^(core\.(pager|editor|sshcommand|askpass|gitproxy)|sequence\.editor|diff\.external|"
    r"diff\..+\.(textconv|command)|merge\..+\.driver|filter\..+\.(clean|smudge|process)|"
    r"pager\..+|alias\..+|credential\.(.+\.)?helper|gpg\.(.+\.)?program|difftool\..+\.cmd|"
    r"mergetool\..+\.cmd|remote\..+\.(uploadpack|receivepack)|ssh\.variant)$", re.IGNORECASE)
#: git settings that load code from a place, or let a URL run a command.
GIT_HIDDEN_KEYS = re.compile(
    r"^(core\.(hookspath|fsmonitor|worktree)|include\.path|includeif\..+\.path|"
    r"protocol\.(ext|fd)\.allow|protocol\.allow|uploadpack\.packobjectshook|"
    r"init\.templatedir)$", re.IGNORECASE)
_GIT_RUNS = {"rebase": ("-x", "--exec"), "difftool": ("-x", "--extcmd"),
             "clone": ("-u", "--upload-pack"), "fetch": ("--upload-pack",),
             "pull": ("--upload-pack",), "ls-remote": ("--upload-pack",),
             "push": ("--receive-pack", "--exec"), "archive": ("--exec",)}
_SSH_VALUES = frozenset({"-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m",
                         "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w", "-B"})
_TMUX_VALUES = frozenset({"-s", "-n", "-t", "-c", "-F", "-x", "-y", "-e", "-f", "-L", "-S"})
_TMUX_RUNS = frozenset({"new", "new-session", "new-window", "neww", "split-window", "splitw",
                        "respawn-pane", "respawnp", "respawn-window", "run-shell", "run",
                        "send-keys", "send", "pipe-pane", "pipep"})
_SED_S = re.compile(r"s([^\w\s\\])((?:\\.|(?!\1).)*)\1((?:\\.|(?!\1).)*)\1([a-zA-Z0-9]*)"
                    r"(?:\s*(\S.*))?")
_SED_COMMAND = re.compile(r"(?:^|[;\n{}])\s*(?:[\d$]+(?:\s*,\s*[\d$]+)?|/(?:\\.|[^/])*/)?\s*!?"
                          r"\s*([ewWr])(?:[ \t]+([^;\n}]*))?")


@dataclass
class Embedded:
    """What a command's arguments or environment would run, load or write."""

    #: ``(shell line, where it comes from)``
    scripts: list[tuple[str, str]] = field(default_factory=list)
    #: ``(what, path)``: code loaded from a place; refused outside the project.
    code_paths: list[tuple[str, str]] = field(default_factory=list)
    #: Reasons for code the guard cannot read at all.
    hidden: list[str] = field(default_factory=list)
    #: Files written (``sed w FILE``) and read (``sed r FILE``).
    writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)


def variables(assigned: list[tuple[str, str]], found: Embedded) -> None:
    """What assigning these variables makes programs run (``GIT_SSH_COMMAND=...``)."""
    for name, value in assigned:
        if name in PROGRAM_VARIABLES and value and _program_path(value):
            found.code_paths.append((name, value))
        elif name in PROGRAM_VARIABLES and value:
            found.scripts.append((value.lstrip("|").replace("%s", "x"), name))
        elif name in CODE_PATH_VARIABLES and value:
            found.code_paths.extend((name, v) for v in value.split(":") if v)
        elif name.startswith("GIT_CONFIG_") or name == "GIT_CONFIG_PARAMETERS":
            found.hidden.append(f"{name} sets git's configuration from the environment")


def git_setting(key: str, value: str, found: Embedded) -> None:
    """``git -c KEY=VALUE``: a command judged, or code the guard cannot read."""
    key = key.lower()
    if GIT_HIDDEN_KEYS.match(key):
        if key != "core.fsmonitor" or value.lower() not in ("true", "false", ""):
            found.hidden.append(f"git setting {key} loads code from {value or 'a place'} "
                                "that the guard cannot read")
    elif GIT_COMMAND_KEYS.match(key) and value:
        if key.startswith("alias."):
            found.scripts.append((value[1:] if value.startswith("!") else f"git {value}",
                                  f"git alias {key[6:]}"))
        elif key.startswith("credential.") and not value.startswith("!") and \
                not value.startswith("/"):
            return  # a helper git runs as git-credential-NAME (store, cache ...)
        elif _program_path(value):
            found.code_paths.append((f"git {key}", value))
        else:
            found.scripts.append((value.lstrip("!"), f"git {key}"))


def from_arguments(name: str, args: list[str], stdin_text: str | None) -> Embedded:
    """What ``name args`` runs from its arguments."""
    found = Embedded()
    if name == "git":
        _git(args, found)
    elif name == "trap":
        rest = args[1:] if args[:1] == ["--"] else args
        if rest and not rest[0].startswith("-") and rest[0] not in ("", "-"):
            found.scripts.append((rest[0], "trap"))
    elif name in ("sed", "gsed"):
        _sed(args, found)
    elif name in ("gdb", "cgdb"):
        for index, arg in enumerate(args):
            if arg in ("-ex", "--ex", "-iex", "--eval-command", "-eval-command") and \
                    index + 1 < len(args):
                _gdb(args[index + 1], found)
            elif arg.startswith(("--eval-command=", "-eval-command=", "--ex=")):
                _gdb(arg.split("=", 1)[1], found)
    elif name in ("make", "gmake"):
        for index, arg in enumerate(args):
            text = args[index + 1] if arg in ("-E", "--eval") and index + 1 < len(args) else (
                arg.split("=", 1)[1] if arg.startswith("--eval=") else None)
            if text is not None:
                found.scripts.extend((line, "make") for line in recipes(text))
            if arg in ("-f", "--file") and index + 1 < len(args) and \
                    args[index + 1] in ("-", "/dev/stdin"):
                if stdin_text is None:
                    found.hidden.append("make reads a makefile from stdin the guard cannot read")
                else:
                    found.scripts.extend((line, "make") for line in recipes(stdin_text))
    elif name == "tmux":
        rest = [a for a in args if not a.startswith("-")]
        if rest and rest[0] in _TMUX_RUNS:
            words = skip_options(args[args.index(rest[0]) + 1:], _TMUX_VALUES)
            if rest[0] in ("send-keys", "send"):
                words = [w for w in words if w not in ("Enter", "C-m", "KPEnter")]
            if words:
                found.scripts.append((" ".join(words), "tmux"))
    elif name in ("ssh", "autossh"):
        rest = skip_options(args, _SSH_VALUES)
        if len(rest) > 1:
            found.scripts.append((" ".join(rest[1:]), "ssh"))
    return found


def _git(args: list[str], found: Embedded) -> None:
    for index, arg in enumerate(args[:-1]):
        if arg == "-c" and "=" in args[index + 1]:
            key, value = args[index + 1].split("=", 1)
            git_setting(key, value, found)
    subs = [a for a in args if not a.startswith("-")]
    sub = git_sub(args)[0]
    for index, arg in enumerate(args):
        options = _GIT_RUNS.get(sub, ())
        value = args[index + 1] if index + 1 < len(args) else ""
        if arg in options and value:
            found.scripts.append((value, f"git {sub} {arg}"))
        elif any(arg.startswith(o + "=") for o in options if o.startswith("--")):
            found.scripts.append((arg.split("=", 1)[1], f"git {sub}"))
        if arg.startswith(("ext::", "fd::")):
            found.hidden.append(f"the git URL {arg[:40]} runs a command")
        if sub in ("init", "clone") and (arg == "--template" or arg.startswith("--template=")):
            found.code_paths.append(("git --template", value if arg == "--template"
                                     else arg.split("=", 1)[1]))
    if sub == "submodule" and "foreach" in subs:
        rest = args[args.index("foreach") + 1:]
        rest = [a for a in rest if a not in ("--recursive", "-q", "--quiet")]
        if rest:
            found.scripts.append((" ".join(rest), "git submodule foreach"))
    if sub == "bisect" and "run" in subs:
        rest = args[args.index("run") + 1:]
        if rest:
            found.scripts.append((" ".join(shlex.quote(w) for w in rest), "git bisect run"))


def _program_path(value: str) -> bool:
    """A program named by its path (``/tmp/x``, ``./hook.sh``): code in a file, judged by
    where the file is; ``/usr/bin/less`` and other system programs are no such thing."""
    return "/" in value and not re.search(r"\s", value) and not value.startswith((
        "/usr/", "/bin/", "/sbin/", "/opt/homebrew/", "/snap/", "/nix/"))


def sed_scripts(args: list[str]) -> list[str]:
    """The scripts sed is given: ``-e``'s, or the first operand (a ``-f`` file is unread)."""
    scripts = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-e", "--expression")]
    scripts += [a.split("=", 1)[1] for a in args if a.startswith("--expression=")]
    if not scripts and not any(a in ("-f", "--file") for a in args):
        positional = [a for a in args if not a.startswith("-")]
        scripts = positional[:1]
    return scripts


def _sed(args: list[str], found: Embedded) -> None:
    for script in sed_scripts(args):
        rest = script
        for match in _SED_S.finditer(script):
            flags, target = match.group(4), (match.group(5) or "").strip()
            if "e" in flags:
                found.hidden.append("sed's s///e runs the text it made as a command")
            if "w" in flags and target:
                found.writes.append(target.split(";")[0].strip())
            rest = rest.replace(match.group(0), ";")
        for match in _SED_COMMAND.finditer(rest):
            command, value = match.group(1), (match.group(2) or "").strip()
            if command == "e":
                if value:
                    found.scripts.append((value, "sed e"))
                else:
                    found.hidden.append("sed's e runs the text it reads as a command")
            elif command in ("w", "W") and value:
                found.writes.append(value)
            elif command == "r" and value:
                found.reads.append(value)


def _gdb(command: str, found: Embedded) -> None:
    text = command.strip()
    if text.startswith("!") or text.startswith("shell "):
        found.scripts.append((text[1:] if text.startswith("!") else text[6:], "gdb"))
    elif text.startswith(("python ", "pi ", "python-interactive ")):
        found.scripts.append((f"python3 -c {shlex.quote(text.split(' ', 1)[1])}", "gdb"))
    else:
        for match in re.finditer(r"\b(system|popen|execl?p?)\s*\(\s*\"([^\"]*)\"", text):
            found.scripts.append((match.group(2), "gdb"))
        if re.search(r"\b(system|popen|exec\w*|dlopen)\s*\(", text) and not \
                re.search(r"\(\s*\"", text):
            found.hidden.append("gdb calls a function with a command the guard cannot read")


def recipes(makefile: str) -> list[str]:
    """The shell lines of a makefile's recipes (``x: ; CMD`` and tab-indented lines)."""
    lines = []
    for line in makefile.replace("\\\n", " ").splitlines():
        if line.startswith("\t"):
            lines.append(line.strip().lstrip("@-+"))
        elif ":" in line and ";" in line.split(":", 1)[1]:
            lines.append(line.split(":", 1)[1].split(";", 1)[1].strip().lstrip("@-+"))
    return [line for line in lines if line]
