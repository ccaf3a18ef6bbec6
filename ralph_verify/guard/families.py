"""The guard's wider rule families: writes by any tool, history-destroying git, inline code.

:mod:`ralph_verify.guard.decide` calls :func:`command_refusals` for each simple command of a
shell line and :func:`line_refusals` once per line. A deny-list cannot be complete: these
rules catch the usual ways an agent destroys work, and what the guard cannot read (``eval``,
a command name computed at run time, unbalanced quotes) is answered with ``ask`` rather than
let through. The real boundary is ``run --sandbox`` (docs/guard.md).
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

from ralph_verify.guard.shell import SHELLS, SimpleCommand, git_global_options

#: Commands that write, move or change the files named by their positional arguments.
MODIFIERS = frozenset({"touch", "truncate", "shred", "chmod", "chown", "chgrp", "chattr",
                       "setfacl", "mkfs", "wipefs", "unlink", "rmdir", "mkdir", "patch",
                       "split", "csplit", "mkfifo", "mknod", "ed"})
#: Commands whose last positional argument is the destination (their sources only read).
COPIERS = frozenset({"cp", "ln", "install", "rsync", "scp"})
#: git subcommands that only read, allowed on a repository outside the project.
GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "rev-parse", "ls-files", "blame",
                           "describe", "shortlog", "grep", "config", "remote", "fetch",
                           "ls-remote", "cat-file", "branch", "tag", "reflog", "help",
                           "version", "--version"})
INLINE_OPTIONS = {"python": ("-c",), "node": ("-e", "--eval", "-p", "--print"),
                  "perl": ("-e", "-E"), "ruby": ("-e",), "php": ("-r",), "deno": ("eval",),
                  "bun": ("-e", "--eval")}
_DESTRUCTIVE_CODE = re.compile(
    r"rmtree|unlink|remove|rmdir|os\.system|subprocess|popen|spawn|exec[a-z]*\(|rename|"
    r"replace\(|\.rm(Sync)?\(|truncate|chmod|chown|rm_rf|rm -|rimraf|fs\.rm|writeFile|write_text|"
    r"write_bytes|open\([^)]*['\"][wax]|File\.write|FileUtils|`", re.IGNORECASE)
_CODE_STRING = re.compile("'([^']*)'|\"([^\"]*)\"")
_CODE_HOME = re.compile(r"expanduser|Path\.home|os\.environ|getenv|ENV\[|process\.env|"
                        r"homedir|\$ENV|\.\./")

Resolver = Callable[[str], "Path | None"]
Inside = Callable[["Path | None"], bool]
#: (rule, reason, decision) before they become :class:`~ralph_verify.guard.policy.Refusal` s.
Found = tuple[str, str, str]


def _positional(args: list[str], with_value: frozenset[str] = frozenset()) -> list[str]:
    out: list[str] = []
    index, options_done = 0, False
    while index < len(args):
        arg = args[index]
        if arg == "--" and not options_done:
            options_done = True
        elif options_done or not arg.startswith("-") or arg == "-":
            out.append(arg)
        elif arg in with_value:
            index += 1
        index += 1
    return out


def write_targets(command: SimpleCommand) -> list[str]:
    """The paths a command writes, moves, deletes or changes (``dd of=``, ``sed -i`` ...)."""
    name, args = command.name, command.args
    if name == "dd":
        return [a[3:] for a in args if a.startswith("of=")]
    if name in ("sed", "gsed", "perl") and any(
            a.startswith("-i") or a.startswith("--in-place") or (
                re.fullmatch(r"-[a-zA-Z]+", a) is not None and "i" in a and name == "perl")
            for a in args):
        positional = _positional(args, frozenset({"-e", "-f", "--expression", "--file"}))
        scripted = any(a in ("-e", "-f", "--expression", "--file") for a in args)
        # ``sed -i '' FILE``: the empty script is lost in splitting; a file is not a script.
        first = positional[:1] if positional and (positional[0].startswith("~") or
                                                  Path(positional[0]).is_file()) else []
        return positional if scripted else first + positional[1:]
    if name in ("chmod", "chown", "chgrp"):
        return _positional(args)[1:]
    if name == "mv":
        return _positional(args, frozenset({"-t", "--target-directory", "-S"}))
    if name in COPIERS:
        for index, arg in enumerate(args):
            if arg in ("-t", "--target-directory") and index + 1 < len(args):
                return [args[index + 1]]
            if arg.startswith("--target-directory="):
                return [arg.split("=", 1)[1]]
        positional = _positional(args, frozenset({"-S", "-m", "-o", "-g", "-e"}))
        return positional[-1:] if len(positional) > 1 or name == "ln" else []
    if name in MODIFIERS or name.split(".")[0] in MODIFIERS:
        return _positional(args, frozenset({"-s", "--size", "-m", "--mode", "-r",
                                            "--reference", "-n"}))
    return []


def command_refusals(command: SimpleCommand, resolve: Resolver, inside: Inside,
                     root: Path, on_session_branch: Callable[[], bool]) -> Iterator[Found]:
    """What the wider families find in one simple command."""
    name, args = command.name, command.args
    first = command.words[0] if command.words else ""
    if "$" in first or "`" in first or (command.substituted_into and not name):
        yield ("unparsable", f"the command name {first!r} is only known when it runs; "
                             "write the command out", "ask")
        return
    if name == "eval" or (name in SHELLS and _dynamic_script(args)):
        yield ("unparsable", f"{name} runs a script that is only known when it runs; write "
                             "the commands out", "ask")
    redirected = [t for op, t in command.redirects if op in (">", ">>", ">|", "&>", "&>>")]
    for target in redirected:
        path = resolve(target)
        if path is not None and (path == root / ".git" or (root / ".git") in path.parents):
            yield ("write-outside", f"writing {target} changes the project's .git", "deny")
    for target in write_targets(command):
        if target.startswith("/dev/") and target in ("/dev/null", "/dev/stdout", "/dev/stderr"):
            continue
        path = resolve(target)
        if path is None or not inside(path) or path == root / ".git" or \
                (root / ".git") in path.parents:
            yield ("write-outside", f"{name} {target} changes {path or target}, outside the "
                                    f"project {root} (or its .git); work inside the project",
                   "deny")
    if name == "rm":
        yield from _glob_refusals(_positional(args), resolve, root)
    if name == "crontab" and any(a.startswith("-") and "r" in a for a in args):
        yield ("system", "crontab -r deletes the user's crontab; leave it alone", "deny")
    elif name == "crontab" and _positional(args, frozenset({"-u"})):
        yield ("system", "crontab FILE replaces the user's crontab", "ask")
    if name in ("systemctl", "launchctl", "shutdown", "reboot", "halt", "poweroff", "kill",
                "killall", "pkill") and _system_wide(name, args):
        yield ("system", f"{name} {' '.join(args)} affects the whole machine", "deny")
    if name == "git":
        yield from _git_history(args, resolve, inside, root, on_session_branch)
    inline = _inline_code(name, args)
    if inline is not None:
        yield from _code_refusals(name, inline, resolve, inside, root)


def line_refusals(line: str) -> Iterator[Found]:
    """Whole-line checks: a line the guard cannot split into words is asked about."""
    try:
        shlex.split(line, comments=False, posix=True)
    except ValueError:
        yield ("unparsable", "the command has an unbalanced quote; the guard cannot tell what "
                             "it would run", "ask")


def _dynamic_script(args: list[str]) -> bool:
    for index, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            script = args[index + 1] if index + 1 < len(args) else ""
            return "$" in script or "`" in script
        if not arg.startswith("-"):
            return False
    return False


def _system_wide(name: str, args: list[str]) -> bool:
    if name in ("kill",):
        return any(a in ("-1", "1") or a.endswith(" -1") for a in _positional(args)) or \
            "-1" in args[-1:]
    if name in ("killall", "pkill"):
        return False
    return name != "systemctl" or any(a in ("stop", "disable", "mask", "poweroff", "reboot",
                                            "halt", "kill") for a in args)


def _glob_refusals(targets: list[str], resolve: Resolver, root: Path) -> Iterator[Found]:
    for target in targets:
        if not re.search(r"[*?\[]", target):
            continue
        head, _, pattern = target.rpartition("/")
        folder = resolve(head or ".") if head or not target.startswith("/") else Path("/")
        if folder is None:
            continue
        if folder == root and (fnmatch.fnmatchcase(".git", pattern) or pattern in ("*", ".*")):
            yield ("rm-outside", f"rm {target} can match the project's .git or everything in "
                                 f"the project {root}; delete the files you created by name",
                   "deny")


def _git_history(args: list[str], resolve: Resolver, inside: Inside, root: Path,
                 on_session_branch: Callable[[], bool]) -> Iterator[Found]:
    options, index = git_global_options(args)
    repo = None
    for option, value in options:
        if option in ("-C", "--git-dir", "--work-tree") and value is not None:
            repo = value
    if index >= len(args):
        return
    sub, rest = args[index], args[index + 1:]
    if repo is not None and sub not in GIT_READ_ONLY and not inside(resolve(repo)):
        yield ("write-outside", f"git {sub} in {repo}, a repository outside the project", "deny")
    positional = _positional(rest)
    why = ""
    if sub == "push":
        deleting = [a for a in positional[1:] if a.startswith(":")]
        if deleting or any(a in ("-d", "--delete", "--prune") for a in rest):
            why = "git push deleting a remote branch"
    elif sub == "branch" and any(
            a == "--force" or (re.fullmatch(r"-[a-zA-Z]+", a) is not None
                               and ("D" in a or ("d" in a and "f" in a))) for a in rest):
        if any(not b.startswith("ralph/") for b in positional):
            why = "git branch -D of a branch that is not a session branch (ralph/...)"
    elif sub in ("checkout", "restore") and not on_session_branch():
        staged_only = sub == "restore" and "--staged" in rest and "--worktree" not in rest
        paths = rest[rest.index("--") + 1:] if "--" in rest else (
            positional if sub == "restore" else [p for p in positional if p in (".", ":/", "*")])
        if not staged_only and (any(p in (".", ":/", "*", "./") for p in paths) or
                                (sub == "checkout" and any(a in ("-f", "--force") for a in rest))):
            why = f"git {sub} of the whole work tree throws away uncommitted work"
    elif sub == "reflog" and rest[:1] in (["expire"], ["delete"]):
        why = "git reflog expire/delete removes the way back to lost commits"
    elif sub == "gc" and any(a.startswith("--prune") and a != "--prune=2.weeks.ago"
                             for a in rest):
        why = "git gc --prune deletes unreachable commits for good"
    elif sub == "prune" or (sub == "update-ref" and "-d" in rest) or sub in (
            "filter-branch", "filter-repo"):
        why = f"git {sub} rewrites or deletes history"
    elif sub == "stash" and rest[:1] in (["clear"], ["drop"]):
        why = f"git stash {rest[0]} deletes stashed work"
    elif sub in ("worktree",) and rest[:1] == ["remove"] and ("--force" in rest or "-f" in rest):
        why = "git worktree remove --force deletes uncommitted work"
    if why:
        yield ("git-history", f"{why}; leave it to the user", "deny")


def _inline_code(name: str, args: list[str]) -> str | None:
    family = re.sub(r"[0-9.]+$", "", name)
    options = INLINE_OPTIONS.get(family)
    if not options:
        return None
    for index, arg in enumerate(args):
        if arg in options and index + 1 < len(args):
            return args[index + 1]
        if family == "perl" and re.fullmatch(r"-[a-zA-Z]*[eE]", arg) and index + 1 < len(args):
            return args[index + 1]
    return None


def _code_refusals(name: str, code: str, resolve: Resolver, inside: Inside,
                   root: Path) -> Iterator[Found]:
    if not _DESTRUCTIVE_CODE.search(code):
        return
    words = [w for pair in _CODE_STRING.findall(code) for text in pair for w in text.split()]
    outside = [p for p in words if p.startswith(("/", "~")) and not p.startswith("/dev/")
               and not inside(resolve(p))]
    if outside:
        yield ("inline-code", f"{name} inline code changes files and names {outside[0]}, "
                              f"outside the project {root}", "deny")
    elif _CODE_HOME.search(code):
        yield ("inline-code", f"{name} inline code changes files at a path computed at run "
                              "time (home, environment, ..); the guard cannot tell where",
               "ask")
