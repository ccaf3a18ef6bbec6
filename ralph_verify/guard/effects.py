"""Effect families beyond the project's files: secrets read by any route, the environment
printed, changes that outlive the session, the machine itself; each yields ``(rule, reason)``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ralph_verify.guard.command import SECRET_NAME, Found, SimpleCommand
from ralph_verify.guard.embedded import GIT_COMMAND_KEYS, GIT_HIDDEN_KEYS, sed_scripts
from ralph_verify.guard.families import OUTPUT_OPTIONS, git_sub, in_place, written
from ralph_verify.guard.policy import DISK

#: Commands that name files without reading what is in them.
NON_READERS = frozenset({
    "echo", "printf", "ls", "stat", "test", "[", "[[", "rm", "touch", "mkdir", "rmdir", "file",
    "wc", "du", "realpath", "readlink", "basename", "dirname", "chmod", "chown", "chgrp",
    "which", "type", "unlink", "shred", "find", "fd", "locate", "cd", "pushd", "popd", "true",
    "false", "exit", "sleep", "export", "unset", "local", "declare", "git-check-ignore",
    "lsof", "fuser", "inotifywait", "watchman", "entr", "ln", "setfacl", "getfacl", "trash", "tee",
    "df", "findmnt", "lsblk", "blkid",
})
#: Commands whose first positional argument is a pattern or program, not a file.
PATTERN_FIRST = {"grep": ("-e", "-f", "--regexp", "--file"), "egrep": ("-e", "-f"),
                 "fgrep": ("-e", "-f"), "rg": ("-e", "-f", "--regexp", "--file"),
                 "ag": (), "ack": (), "sed": ("-e", "-f", "--expression", "--file"),
                 "awk": ("-f", "--file"), "gawk": ("-f",), "jq": ("-f", "--from-file"),
                 "yq": ()}
_VALUE_OPTIONS = {
    "grep": frozenset({"-A", "-B", "-C", "-m", "-d", "-D", "--max-count"}),
    "rg": frozenset({"-A", "-B", "-C", "-m", "-g", "-t", "-T", "--type", "--glob",
                     "--max-count", "-M"}),
    "sed": frozenset({"-l"}), "awk": frozenset({"-v", "-F"}), "gawk": frozenset({"-v", "-F"}),
    "jq": frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile", "--indent"}),
}
#: What the user holds outside the project: the clipboard, other terminals' screens.
_HELD_ELSEWHERE = {"xclip": re.compile(r"(^|\s)-o"),
                   "xsel": re.compile(r"(^|\s)(-o|--output)\b|^$"),
                   "wl-paste": re.compile(""), "pbpaste": re.compile(""),
                   "tmux": re.compile(r"\bcapture-pane\b"), "screen": re.compile(r"hardcopy")}
SECRET_VAR = re.compile(rf"\$\{{?[A-Za-z_]*({SECRET_NAME.pattern})", re.IGNORECASE)
_ENVIRON_FILE = re.compile(r"/proc/[^/\s]+/environ")
_INDIRECT = re.compile(r"\$\{![A-Za-z_][A-Za-z0-9_]*\}")
STARTUP_FILES = frozenset({
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
    ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc",
    ".inputrc", ".xprofile", ".xinitrc", ".xsessionrc", ".pam_environment", ".gitconfig",
    ".npmrc", ".pypirc", ".condarc", ".curlrc", ".wgetrc", "authorized_keys", ".vimrc",
    ".exrc", ".editrc", ".tmux.conf", ".screenrc",
})
STARTUP_FOLDERS = ("/.config/fish/", "/.config/autostart/", "/.config/systemd/",
                   "/.local/share/systemd/", "/.config/environment.d/", "/etc/profile.d/",
                   "/etc/cron", "/var/spool/cron/", "/Library/LaunchAgents/",
                   "/.config/git/", "/etc/systemd/", "/.ssh/")
_DISK_TOOLS = frozenset({"fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "cgdisk",
                         "blkdiscard", "mkswap", "badblocks", "hdparm", "zpool", "lvremove",
                         "vgremove", "pvremove", "cryptsetup", "mdadm"})
_GIT_CONFIG_WRITES = frozenset({"--add", "--unset", "--unset-all", "--replace-all",
                                "--rename-section", "--remove-section", "-e", "--edit"})

_EXCLUDES = ("--exclude", "--exclude-dir", "--ignore", "--ignore-pattern", "--ignore-glob")
_EXCLUDES_EQ = tuple(f"{o}=" for o in _EXCLUDES)


def reads(command: SimpleCommand) -> list[str]:
    """The words of ``command`` that may name a file it reads (or sends)."""
    name, args = command.name, command.args
    if name in NON_READERS or not name:
        return []
    if name == "git" and git_sub(args)[0] in ("check-ignore", "rm", "ls-files", "status", "mv",
                                               "restore", "checkout"):
        return []
    if name in ("cp", "mv", "install", "rsync", "scp"):
        positional = [a for a in args if not a.startswith("-")]
        args = [a for a in args if a != positional[-1]] if len(positional) > 1 else args
    if name in ("ssh", "scp", "sftp") and "-i" in args[:-1]:
        index = args.index("-i")  # an identity used to log in, not read out
        args = args[:index] + args[index + 2:]
    outputs = OUTPUT_OPTIONS.get(name, ())
    args = [a for i, a in enumerate(args) if a not in outputs and (i == 0 or args[i - 1] not in
                                                                   outputs)]
    # ``--env-file .env`` (docker, uvicorn ...): loaded into a process, not printed.
    args = [a for i, a in enumerate(args) if not a.startswith("--env-file=")
            and (i == 0 or args[i - 1] != "--env-file")]
    # ``--exclude '.env*'``: what is left out is not read.
    args = [a for i, a in enumerate(args) if not a.startswith(_EXCLUDES_EQ) and (
        i == 0 or args[i - 1] not in _EXCLUDES)]
    if name == "sed" and _edits_quietly(args):
        return []
    if name in PATTERN_FIRST:
        args = _drop_pattern(args, PATTERN_FIRST[name],
                             _VALUE_OPTIONS.get(name.lstrip("ef"), frozenset()))
    words: list[str] = []
    for arg in args:
        words.append(arg)
        for sep in ("=", "@", ":"):
            if sep in arg:
                words.append(arg.rsplit(sep, 1)[-1])
    return [w for w in words if w and not w.startswith("-")]


#: A sed script that only substitutes or deletes lines: no ``p``, ``w`` or ``e``.
_SED_EDIT = re.compile(r"(\d+|\$|/[^/]*/)?d|s(.)(?:\\.|(?!\2).)*\2(?:\\.|(?!\2).)*\2[gI0-9]*")


def _edits_quietly(args: list[str]) -> bool:
    """``sed -i 's/a/b/' .env``: the file is rewritten in place and nothing is printed."""
    scripts = sed_scripts(args)
    return in_place(args) and bool(scripts) and all(
        _SED_EDIT.fullmatch(part.strip()) for script in scripts for part in script.split(";"))


def _drop_pattern(args: list[str], pattern_options: tuple[str, ...],
                  with_value: frozenset[str]) -> list[str]:
    if any(a in pattern_options or any(a.startswith(o + "=") for o in pattern_options
                                       if o.startswith("--")) for a in args):
        return args
    out, index, dropped = [], 0, False
    while index < len(args):
        arg = args[index]
        if arg.startswith("-") and arg != "-":
            out.append(arg)
            if arg in with_value and index + 1 < len(args):
                out.append(args[index + 1])
                index += 1 + (arg in ("--arg", "--argjson", "--slurpfile", "--rawfile"))
        elif not dropped:
            dropped = True
        else:
            out.append(arg)
        index += 1
    return out


def _drop_options(args: list[str]) -> list[str]:
    """jq's arguments without its options and their values."""
    out, index = [], 0
    while index < len(args):
        arg = args[index]
        if arg in ("--arg", "--argjson", "--slurpfile", "--rawfile"):
            index += 3
            continue
        if arg in ("--indent", "-f", "--from-file", "-L", "--args", "--jsonargs"):
            index += 2
            continue
        out.append(arg)
        index += 1
    return out


def grepped(command: SimpleCommand, commands: list[SimpleCommand]) -> bool:
    """``env | grep PATH``: what the dump feeds is a ``grep`` for a name that is no secret."""
    readers = [c for c in commands if any(u is command for u in c.upstream)]
    if len(readers) != 1 or readers[0].name not in ("grep", "egrep", "rg"):
        return False
    args = readers[0].args
    if any(a in ("-c", "--count", "-q", "--quiet", "-l") for a in args):
        return True  # a count or a yes/no: no value printed
    patterns = [a for a in args if not a.startswith("-")][:1]
    # Plain names (``PATH``, ``^PYTHON``, ``^(PATH|HOME)=``): not ``.``, not a secret's.
    names = re.fullmatch(r"\^?\(?([A-Za-z_][A-Za-z0-9_]{2,}(\|[A-Za-z_][A-Za-z0-9_]{2,})*)\)?=?",
                         patterns[0]) if patterns else None
    return names is not None and not any(a.startswith("-") and ("v" in a or "f" in a or "e" in a)
                                         for a in args) and \
        not any(SECRET_VAR.search("$" + n) for n in names.group(1).split("|"))


def env_dump(command: SimpleCommand) -> Iterator[Found]:
    """Printing the whole environment (or a secret-looking variable) into the transcript."""
    name, args = command.name, command.args
    positional = [a for a in args if not a.startswith("-")]
    why = ""
    if name == "env" and not positional:
        why = "env prints every environment variable"
    elif name == "printenv" and (not positional or any(SECRET_VAR.search("$" + a) or "$" in a
                                                        for a in positional)):
        why = "printenv prints environment variables"
    elif (name == "set" and not args) or (name == "export" and args in ([], ["-p"])) or (
            name in ("declare", "typeset") and args in ([], ["-p"], ["-x"], ["-px"], ["-xp"])):
        why = f"{name} {' '.join(args)} prints every variable"
    elif name == "php" and args[:1] in (["-i"], ["--info"]):
        why = "php -i prints phpinfo, the whole environment among it"
    elif name == "ps" and any(not a.startswith("-") and "e" in a for a in args[:2]):
        why = "ps e prints every process's environment"
    elif name in ("echo", "printf", "print") and any(SECRET_VAR.search(a) for a in args):
        why = f"{name} of a secret-looking variable"
    elif (name in ("docker", "podman", "docker-compose") and "config" in args and (
            "compose" in args or name == "docker-compose")) or (
            name in ("npm", "yarn", "pnpm") and args[-1:] == ["env"]) or (
            name in ("make", "gmake") and any(a == "--print-data-base" or re.fullmatch(
                r"-[a-zA-Z]*p[a-zA-Z]*", a) for a in args)):
        why = f"{name} {' '.join(args)} prints the environment (and the secrets it loads)"
    elif name in _HELD_ELSEWHERE and _HELD_ELSEWHERE[name].search(" ".join(args)):
        why = f"{name} reads what the user holds elsewhere (the clipboard, another terminal)"
    if name in ("jq", "gojq", "jaq") and not why:
        program = next((a for a in _drop_options(args) if not a.startswith("-")), "")
        used = re.findall(r"(?:\$ENV|\benv)\s*(?:\.\s*|\[\s*\")?([A-Za-z_][A-Za-z0-9_]*)?",
                          program)
        if any(not n or SECRET_VAR.search("$" + n) for n in used):
            why = f"{name}'s env / $ENV prints environment variables"
    words = [*command.words, *(target for _, target in command.redirects)]
    if not why and any(_ENVIRON_FILE.search(w) for w in words):
        why = "reading /proc/*/environ prints a process's environment"
    elif not why and any(_INDIRECT.search(w) for w in command.words):
        why = "${!name} prints variables whose names are only known when it runs"
    if why:
        yield ("env-dump", f"{why}; the transcript goes to the model's provider, and the "
                           "environment holds API keys and tokens. Print only the variable "
                           "you need by name, if it is not a secret")


def persistence(command: SimpleCommand, git_args: list[str] | None) -> Iterator[Found]:
    """Changes that outlive the session: git's global config, crontab, user services."""
    name, args = command.name, command.args
    if git_args is not None:
        yield from _git_config(git_args)
    if name == "crontab" and not (args and all(a in ("-l", "-u") or not a.startswith("-")
                                               for a in args) and "-l" in args):
        yield ("persistence", "crontab changes the user's scheduled jobs, which outlive the "
                              "session; leave scheduling to the user")
    elif name in ("at", "batch") and "-l" not in args:
        yield ("persistence", f"{name} schedules a command to run later, outside the session")
    elif name == "systemctl" and "--user" in args:
        verbs = [a for a in args if not a.startswith("-")]
        if verbs and verbs[0] not in ("status", "list-units", "list-unit-files", "show",
                                      "cat", "is-active", "is-enabled", "is-failed",
                                      "list-timers", "help"):
            yield ("persistence", f"systemctl --user {verbs[0]} changes the user's services, "
                                  "which outlive the session")
    elif "systemd-run" in command.wrappers or name == "systemd-run":
        yield ("persistence", "systemd-run starts a unit that outlives the session")
    elif name == "loginctl" and "enable-linger" in args:
        yield ("persistence", "loginctl enable-linger keeps user services running after logout")
    elif name == "launchctl" and any(a in ("load", "bootstrap", "submit", "enable")
                                     for a in args):
        yield ("persistence", "launchctl loads a job that outlives the session")


def _git_config(args: list[str]) -> Iterator[Found]:
    """``args``: git's arguments (global options included)."""
    for arg in args:
        if arg.startswith("--config-env"):
            yield ("persistence", "git --config-env sets a config value from the environment")
    sub, rest = git_sub(args)
    if sub != "config":
        return
    values = [a for a in rest if not a.startswith("-")]
    if values[:1] in (["get"], ["list"]):
        return
    writes = bool(values[:1] in (["set"], ["unset"], ["edit"], ["rename-section"],
                                 ["remove-section"]) or len(values) >= 2
                  or _GIT_CONFIG_WRITES & set(rest))
    if not writes:
        return
    scope = next((a for a in rest if a in ("--global", "--system") or a.startswith("--file")
                  or a == "-f"), None)
    if scope is not None:
        yield ("persistence", f"git config {scope} changes git for every repository of the "
                              "user; set it in the project (git config --local) or leave it "
                              "to the user")
    elif values and (GIT_HIDDEN_KEYS.match(values[0]) or (
            GIT_COMMAND_KEYS.match(values[0]) and not values[0].lower().startswith(
                ("alias.", "credential."))) or (
            values[0].lower().startswith(("alias.", "credential.")) and any(
                v.startswith("!") for v in values[1:]))):
        yield ("persistence", "git config of a key that runs a program (core.hooksPath, "
                              "core.fsmonitor ...) lets code run outside what the guard sees")


def startup_file(path: Path) -> bool:
    """A shell start-up file, a user service, cron: what runs again in a later session."""
    text = path.as_posix()
    return path.name in STARTUP_FILES or any(folder in text + "/"
                                             for folder in STARTUP_FOLDERS)


def machine(command: SimpleCommand) -> Iterator[Found]:
    """Processes, power, disks: the machine's own state."""
    name, args = command.name, command.args
    why = ""
    if name == "kill" and "-1" in _kill_targets(args):
        why = "kill -1 signals every process the user may signal"
    elif name in ("killall5",) or (name in ("pkill", "killall") and (
            any(a in ("-u", "--user") or a.startswith("--user=") for a in args) or
            any(a in (".", ".*", "^", "") for a in args if not a.startswith("-")))):
        why = f"{name} {' '.join(args)} kills every process of a user"
    elif name in ("shutdown", "reboot", "halt", "poweroff") or (
            name in ("init", "telinit") and args[:1] in (["0"], ["6"], ["1"])):
        why = f"{name} stops the machine"
    elif name == "systemctl" and "--user" not in args and any(
            a in ("stop", "disable", "mask", "kill", "poweroff", "reboot", "halt", "isolate",
                  "restart", "try-restart", "reload-or-restart", "enable", "set-default",
                  "edit", "revert", "link", "daemon-reexec", "default",
                  "suspend", "hibernate", "rescue", "emergency") for a in args):
        why = f"systemctl {' '.join(args)} changes the machine's services"
    elif name.startswith("mkfs") or name in ("wipefs", "mke2fs", "mkdosfs") or (
            name in _DISK_TOOLS and not ({"-l", "--list", "-p", "--print", "-I"} & set(args))):
        why = f"{name} rewrites a disk or a partition"
    elif disk := next((t for t in written(command) if DISK.match(t)), ""):
        why = f"{name or 'a redirection'} writing {disk} wipes a disk"
    elif name in ("swapoff", "sysctl") and any(a in ("-a", "-w") for a in args):
        why = f"{name} changes the running kernel"
    elif (name in ("mount", "umount") and args) or (
            name in ("iptables", "ip6tables", "nft", "ufw") and not {"-L", "-S", "list",
                                                                   "status"} & set(args)):
        why = f"{name} {' '.join(args)} changes the machine's file systems or firewall"
    if why:
        yield ("system", f"{why}; leave it to the user")


def _kill_targets(args: list[str]) -> list[str]:
    index, signal_given = 0, False
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return args[index + 1:]
        if arg in ("-s", "-n", "--signal"):
            index += 2
            signal_given = True
            continue
        if arg.startswith("-") and not signal_given and index == 0 and (
                arg[1:].isalpha() or arg[1:].isdigit() or arg[1:].upper().startswith("SIG")):
            signal_given = True
            index += 1
            continue
        if arg in ("-l", "-L", "--list"):
            return []
        return args[index:]
    return []
