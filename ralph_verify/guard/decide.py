"""The safety guard: refuse destructive or exfiltrating tool calls before they run.

Pure: :func:`evaluate` takes one tool call (the ``tool_name`` and ``tool_input``
of a PreToolUse hook) and a :class:`Policy`, and returns a :class:`Refusal` or
``None``. Rules, each of which can be switched off:

==================  ==========================================================================
``rm-outside``      ``rm`` / ``find -delete`` of anything outside the project, of the project
                    itself or of its ``.git``; a target it cannot resolve (``$VAR``) counts
``force-push``      ``git push --force`` / ``-f`` / ``--force-with-lease`` / ``+ref`` / ``--mirror``
``reset-hard``      ``git reset --hard`` unless on a session branch (``ralph/...``)
``clean``           ``git clean -f`` (``-fdx``) unless on a session branch
``sudo``            ``sudo``, ``doas``, ``su``, ``pkexec``
``pipe-to-shell``   a download fed to an interpreter: ``curl ... | sh``, ``bash <(curl ...)``,
                    ``sh -c "$(curl ...)"``
``write-outside``   Write/Edit/NotebookEdit of a path outside the project; shell output
                    redirections and ``tee`` to such a path (``/dev/null`` and friends are fine)
``read-secrets``    reading ``.env``, keys, credentials: Read/Grep of such a path, or a shell
                    command that reads or sends one (``cat .env``, ``curl -d @.env``)
``metadata``        any mention of a cloud metadata address (169.254.169.254, ...)
``git-history``     ``push :main``, ``branch -D``, ``checkout -- .``, ``reflog expire`` ...
``inline-code``     ``python -c`` / ``node -e`` ... changing files outside the project
``system``          ``crontab -r``, ``kill -1``, ``systemctl stop``
``unparsable``      ``eval``, a computed command name, unbalanced quotes: ``ask``
==================  ==========================================================================

The wider families live in :mod:`ralph_verify.guard.families`; docs/guard.md has the
measured figures and what the guard does not stop.

Paths under ``allow_paths`` count as inside the project; what the guard protects (the
:class:`Policy`) and where a path lands against it is :mod:`ralph_verify.guard.policy`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ralph_verify.guard.families import command_refusals, line_refusals
from ralph_verify.guard.policy import (
    DEFAULT_METADATA_HOSTS,
    DEFAULT_PUBLIC_PATTERNS,
    DEFAULT_SECRET_PATTERNS,
    Policy,
    Refusal,
    branch_text,
    cd_target,
    current_branch,
    is_inside,
    is_secret,
    resolve,
    session_branch,
)
from ralph_verify.guard.shell import (
    OUTPUT_REDIRECTS,
    PIPES,
    SHELLS,
    SimpleCommand,
    git_global_options,
    parse,
)

__all__ = ["DEFAULT_METADATA_HOSTS", "DEFAULT_PUBLIC_PATTERNS", "DEFAULT_SECRET_PATTERNS",
           "Policy", "Refusal", "current_branch", "evaluate"]

DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "iwr",
                         "irm", "invoke-webrequest", "invoke-restmethod"})
INTERPRETERS = SHELLS | frozenset({"python", "python2", "python3", "perl", "ruby", "node",
                                   "php", "pwsh", "powershell", "source", ".", "iex", "deno",
                                   "bun"})
#: Shell commands that read (or send) the files named in their arguments.
READERS = frozenset({
    "cat", "tac", "less", "more", "head", "tail", "nl", "od", "xxd", "hexdump", "strings",
    "base64", "base32", "grep", "egrep", "fgrep", "rg", "ag", "ack", "awk", "gawk", "sed",
    "cut", "sort", "uniq", "diff", "jq", "yq", "cp", "scp", "rsync", "curl", "wget", "nc",
    "ncat", "socat", "tar", "zip", "gzip", "bzip2", "xz", "openssl", "gpg", "vi", "vim",
    "nvim", "nano", "emacs", "view", "bat", "batcat", "paste", "column", "fold", "iconv",
    "dd", "install", "tee", "git", "mv", "ln",
})
WRITE_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
               "NotebookEdit": "notebook_path"}
READ_TOOLS = {"Read": "file_path", "Grep": "path", "Glob": "path", "NotebookRead": "notebook_path"}
SHELL_TOOLS = {"Bash", "bash", "shell", "exec_command", "local_shell", "container.exec"}
_DEVICES = re.compile(r"^/dev/(null|stdout|stderr|tty|zero|fd/\d+)$")


def evaluate(tool_name: str, tool_input: Mapping[str, Any], policy: Policy) -> Refusal | None:
    """The first rule this tool call breaks (a deny before an ask), or ``None``."""
    found = [r for r in _refusals(tool_name, tool_input, policy) if policy.on(r.rule)]
    return next((r for r in found if r.decision == "deny"), found[0] if found else None)


def _refusals(tool_name: str, tool_input: Mapping[str, Any], policy: Policy) -> Iterator[Refusal]:
    # A mention in a file's content is not a request; a command or URL is.
    scanned = {} if tool_name in WRITE_TOOLS or tool_name in READ_TOOLS else tool_input
    for text in _strings(scanned):
        lowered = text.lower()
        host = next((h for h in policy.metadata_hosts if h.lower() in lowered), None)
        if host is not None:
            yield Refusal("metadata", f"the call addresses {host}, a cloud metadata service "
                                      "that hands out credentials; it is off limits")
    cwd = policy.cwd or policy.root
    if tool_name in WRITE_TOOLS:
        path = tool_input.get(WRITE_TOOLS[tool_name])
        if isinstance(path, str) and path and not is_inside(resolve(path, cwd, policy), policy):
            yield Refusal("write-outside", f"{tool_name} of {path}: it is outside the project "
                                           f"{policy.root}; work inside the project")
    if tool_name in READ_TOOLS:
        path = tool_input.get(READ_TOOLS[tool_name])
        if isinstance(path, str) and path and is_secret(resolve(path, cwd, policy), policy):
            yield Refusal("read-secrets", f"{tool_name} of {path}: it looks like a secret "
                                          "(.env, key, credentials) and must not be read")
    command = _shell_command(tool_name, tool_input)
    if command is not None:
        yield from _shell_refusals(command, cwd, policy)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _shell_command(tool_name: str, tool_input: Mapping[str, Any]) -> str | None:
    value = tool_input.get("command", tool_input.get("cmd"))
    if tool_name not in SHELL_TOOLS and value is None:
        return None
    if isinstance(value, list):
        import shlex

        words = [str(word) for word in value]
        # ``["bash", "-lc", SCRIPT]`` (Codex) is the script itself.
        if len(words) == 3 and words[1] in ("-c", "-lc") and words[0].endswith("sh"):
            return words[2]
        return shlex.join(words)
    return value if isinstance(value, str) else None


# --- shell commands -------------------------------------------------------------------------


def _shell_refusals(line: str, cwd: Path, policy: Policy) -> Iterator[Refusal]:
    commands = parse(line)
    current: Path | None = cwd
    for rule, reason, decision in line_refusals(line):
        yield Refusal(rule, reason, decision)
    for index, command in enumerate(commands):
        name = command.name
        if {"sudo", "doas", "pkexec"} & set(command.wrappers) or name in ("sudo", "su", "doas",
                                                                          "pkexec"):
            yield Refusal("sudo", "running commands as another user (sudo/su/doas) is not "
                                  "allowed; do without elevated rights")
        if name in ("cd", "pushd"):
            current = cd_target(command.args, current, policy)
            continue
        if name in INTERPRETERS and _reads_program_from_input(command):
            piped = command.after in PIPES and any(c.name in DOWNLOADERS
                                                   for c in commands[:index])
            substituted = (index + 1 < len(commands) and commands[index + 1].after == "<("
                           and commands[index + 1].name in DOWNLOADERS)
            if piped or substituted:
                yield _pipe_refusal(command)
        if command.substituted_into in INTERPRETERS | {"eval"} and name in DOWNLOADERS:
            yield _pipe_refusal(command)
        yield from _command_refusals(command, current, policy)
        yield from _family_refusals(command, current, policy)


def _family_refusals(command: SimpleCommand, cwd: Path | None,
                     policy: Policy) -> Iterator[Refusal]:
    root = Path(os.path.realpath(policy.root))
    found = command_refusals(
        command, lambda p: resolve(p, cwd, policy), lambda p: is_inside(p, policy), root,
        lambda: session_branch(current_branch(cwd or policy.root), policy))
    for rule, reason, decision in found:
        yield Refusal(rule, reason, decision)


def _pipe_refusal(command: SimpleCommand) -> Refusal:
    return Refusal("pipe-to-shell", f"{command.name} would run a script straight from a "
                                    "download; download it to a file in the project and "
                                    "read it first, or do without it")


def _reads_program_from_input(command: SimpleCommand) -> bool:
    """``sh``, ``bash -s``, ``python -``, ``source /dev/stdin``: the program comes from stdin."""
    if command.name in ("source", ".", "iex"):
        return True
    args = command.args
    if any(a in ("-c", "-m", "-e", "-E", "--eval", "-r") for a in args):
        return command.name in SHELLS and "-s" in args
    positional = [a for a in args if not a.startswith("-") or a == "-"]
    return not positional or positional[0] in ("-", "/dev/stdin") or "-s" in args


def _command_refusals(command: SimpleCommand, cwd: Path | None,
                      policy: Policy) -> Iterator[Refusal]:
    name, args = command.name, command.args
    if name == "rm":
        targets = _positional(args)
        yield from _deletion_refusals(targets, cwd, policy, "rm")
    elif name == "find" and ("-delete" in args or _find_execs_rm(args)):
        starts = []
        for arg in args:
            if arg.startswith(("-", "(", "!")):
                break
            starts.append(arg)
        yield from _deletion_refusals(starts or ["."], cwd, policy, "find -delete",
                                      searched=True)
    elif name == "git":
        yield from _git_refusals(args, cwd, policy)
    for op, target in command.redirects:
        if op in OUTPUT_REDIRECTS and target and not target.isdigit() and target != "-" \
                and not _DEVICES.match(target):
            path = resolve(target, cwd, policy)
            if path is None or not is_inside(path, policy):
                yield Refusal("write-outside", f"redirecting output to {target}: it is "
                                               f"outside the project {policy.root}")
        if op in ("<", "<>") and is_secret(resolve(target, cwd, policy), policy):
            yield _secret_refusal(target)
    if name == "tee":
        for target in _positional(args):
            if _DEVICES.match(target):
                continue
            path = resolve(target, cwd, policy)
            if path is None or not is_inside(path, policy):
                yield Refusal("write-outside", f"tee to {target}: it is outside the project "
                                               f"{policy.root}")
    if name in READERS:
        checked = args
        if name in ("cp", "mv", "install", "rsync", "scp", "ln") and len(_positional(args)) > 1:
            checked = [a for a in args if a != _positional(args)[-1]]  # the destination
        for arg in checked:
            for candidate in _file_mentions(arg):
                if is_secret(resolve(candidate, cwd, policy), policy):
                    yield _secret_refusal(candidate)


def _secret_refusal(path: str) -> Refusal:
    return Refusal("read-secrets", f"{path} looks like a secret (.env, key, credentials) and "
                                   "must not be read or sent anywhere")


def _file_mentions(arg: str) -> list[str]:
    """``@.env`` (curl), ``file=@.env``, ``--file=.env``, ``HEAD:.env`` -> candidate paths."""
    found = [arg]
    for sep in ("=", "@", ":"):
        if sep in arg:
            found.append(arg.rsplit(sep, 1)[-1])
    return [f for f in found if f and not f.startswith("-")]


def _positional(args: list[str]) -> list[str]:
    out: list[str] = []
    options_done = False
    for arg in args:
        if arg == "--" and not options_done:
            options_done = True
        elif options_done or not arg.startswith("-") or arg == "-":
            out.append(arg)
    return out


def _find_execs_rm(args: list[str]) -> bool:
    for index, arg in enumerate(args):
        if arg in ("-exec", "-execdir", "-ok") and index + 1 < len(args):
            return args[index + 1].rsplit("/", 1)[-1] == "rm"
    return False


def _deletion_refusals(targets: list[str], cwd: Path | None, policy: Policy,
                       what: str, searched: bool = False) -> Iterator[Refusal]:
    """``searched``: the targets are folders whose contents are deleted (``find``)."""
    for target in targets:
        glob_free = re.split(r"[*?\[]", target, maxsplit=1)[0]
        has_glob = glob_free != target
        base = glob_free.rsplit("/", 1)[0] if has_glob and "/" in glob_free else (
            "." if has_glob else target)
        if has_glob and glob_free.startswith("/") and base == "":
            base = "/"
        path = resolve(base, cwd, policy, follow_last=False)
        if path is None:
            yield Refusal("rm-outside", f"{what} {target}: cannot tell where that is (a variable "
                                        "or an unknown directory); name a path inside the "
                                        "project")
            continue
        git_dir = policy.root / ".git"
        within = is_inside(path, policy)
        if has_glob or searched:
            bad = not within or path == git_dir
        else:
            bad = not within or path in (policy.root, git_dir)
        if bad:
            yield Refusal("rm-outside", f"{what} {target} deletes {path}, which is outside the "
                                        f"project {policy.root} (or is the project or its .git); "
                                        "delete only what you created inside the project")


def _git_refusals(args: list[str], cwd: Path | None, policy: Policy) -> Iterator[Refusal]:
    options, index = git_global_options(args)
    repo = cwd
    for option, value in options:
        if option == "-C" and value is not None:
            repo = resolve(value, repo, policy)
    if index >= len(args):
        return
    sub, rest = args[index], args[index + 1:]
    if sub == "push":
        forced = [a for a in rest if a in ("-f", "--force", "--mirror", "--force-if-includes")
                  or a.startswith("--force-with-lease")
                  or (re.fullmatch(r"-[a-zA-Z]+", a) is not None and "f" in a)
                  or (a.startswith("+") and len(a) > 1)]
        if forced:
            yield Refusal("force-push", f"git push {forced[0]} rewrites history on the remote; "
                                        "push without force, or leave the push to the user")
    elif sub == "reset" and "--hard" in rest:
        branch = current_branch(repo or policy.root)
        if not session_branch(branch, policy):
            yield Refusal("reset-hard", f"git reset --hard on {branch_text(branch)} throws away "
                                        "the user's work; use git stash, git restore on "
                                        "single files, or a new commit instead")
    elif sub == "clean":
        force = any(a == "--force" or (re.fullmatch(r"-[a-zA-Z]+", a) is not None and "f" in a)
                    for a in rest)
        if force and not any(a in ("-n", "--dry-run") for a in rest):
            branch = current_branch(repo or policy.root)
            if not session_branch(branch, policy):
                yield Refusal("clean", f"git clean -f on {branch_text(branch)} deletes the "
                                       "user's untracked files; remove single files you "
                                       "created instead")
