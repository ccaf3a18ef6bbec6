"""Files written by any tool, and git commands that destroy history or uncommitted work."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ralph_verify.guard.command import Found, SimpleCommand
from ralph_verify.guard.policy import (
    Policy,
    current_branch,
    resolve,
    session_branch,
    writable,
)

#: Commands that write, move or change the files named by their positional arguments.
MODIFIERS = frozenset({"touch", "truncate", "shred", "chmod", "chown", "chgrp", "chattr",
                       "setfacl", "mkfs", "wipefs", "unlink", "rmdir", "mkdir", "patch",
                       "split", "csplit", "mkfifo", "mknod", "ed", "sponge"})
#: Options of these commands that take a value (which is not a file they change).
_MODIFIER_VALUES = {
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "shred": frozenset({"-n", "--iterations", "-s", "--size", "--random-source"}),
    "touch": frozenset({"-r", "--reference", "-d", "--date", "-t"}),
    "mkdir": frozenset({"-m", "--mode"}), "split": frozenset({"-b", "-l", "-n", "-C", "-a"}),
    "mknod": frozenset({"-m", "--mode"}), "mkfifo": frozenset({"-m", "--mode"}),
    "patch": frozenset({"-i", "--input", "-p", "-o", "--output", "-r", "-B", "-F", "-D"}),
}
_MODE = re.compile(r"-[rwxXst]+")
#: Compressors that replace the files they are given.
_COMPRESSORS = frozenset({"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "lzma",
                          "lz4", "compress", "pigz"})
#: Options whose value is a file the command writes, not one it reads.
OUTPUT_OPTIONS = {"openssl": ("-out", "-keyout"), "curl": ("-o", "--output"),
                  "wget": ("-O", "--output-document", "-o", "--output-file"),
                  "sort": ("-o", "--output"), "pandoc": ("-o", "--output"),
                  "aria2c": ("-o", "--out", "-d", "--dir"), "gpg": ("-o", "--output")}
#: Options any program writes its output, report, cache or install to (``pytest
#: --junitxml``, ``gcc -o``, ``ruff --output-file``, ``npm --prefix``, ``mypy --cache-dir``).
_WRITES_TO = re.compile(r"^(-o|--?out|--?outfile|--?output(-?(file|dir|document))?|"
                        r"--out-?(file|dir)|--outdir|--junit-?xml|--basetemp|--prefix|--root|"
                        r"--(cache|target|dest|destination)-?dir|--directory-prefix|"
                        r"--dest(ination)?|--html|--xml|--log-?file)$", re.IGNORECASE)
#: Commands whose last positional argument is the destination (their sources only read).
COPIERS = frozenset({"cp", "ln", "install", "rsync", "scp"})
#: git subcommands that only read, allowed on a repository outside the project.
GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "rev-parse", "ls-files", "blame",
                           "describe", "shortlog", "grep", "config", "remote", "fetch",
                           "ls-remote", "cat-file", "branch", "tag", "reflog", "help",
                           "version", "--version"})


def operands(args: list[str], with_value: frozenset[str] = frozenset()) -> list[str]:
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
    if name in ("find", "bfs"):  # ``find -fprint FILE``
        return [args[i + 1] for i, a in enumerate(args[:-1]) if a in (
            "-fprint", "-fprint0", "-fprintf", "-fls")]
    if name in ("tar", "gtar", "bsdtar") and any(a == "--absolute-names" or re.fullmatch(
            r"-?[a-zA-Z]*P[a-zA-Z]*", a) for a in args[:3]) and any(
            a in ("--extract", "--get") or re.fullmatch(r"-?[a-zA-Z]*x[a-zA-Z]*", a)
            for a in args[:3]):
        return ["/"]  # ``tar -xPf``: the archive's absolute paths, anywhere
    if name in ("sed", "gsed", "perl") and in_place(args):
        positional = operands(args, frozenset({"-e", "-f", "--expression", "--file"}))
        scripted = any(a in ("-e", "-f", "--expression", "--file") for a in args)
        # ``sed -i '' FILE``: the empty script is lost in splitting; a file is not a script.
        first = positional[:1] if positional and (positional[0].startswith("~") or
                                                  Path(positional[0]).is_file()) else []
        return positional if scripted else first + positional[1:]
    if name in ("chmod", "chown", "chgrp"):  # ``chmod -x FILE``: ``-x`` is the mode
        return [a for a in args if not a.startswith("-") or a == "-"][
            0 if name == "chmod" and any(_MODE.fullmatch(a) for a in args) else 1:]
    if name in ("tar", "gtar", "bsdtar", "unzip", "7z", "7za", "cpio") and (
            name != "tar" or any(a.startswith("x") or a.startswith("-x") or a == "--extract" or
                                 (a.startswith("-") and not a.startswith("--") and "x" in a)
                                 for a in args[:2])):
        return _extract_folder(name, args)
    if name == "mv":
        return operands(args, frozenset({"-t", "--target-directory", "-S"})) + [
            args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-t", "--target-directory")]
    if (name in ("docker", "podman", "kubectl", "oc") and args[:1] == ["cp"]) or \
            name in ("ffmpeg", "uniq") or (name.startswith("python") and
                                         args[:2] == ["-m", "json.tool"]):
        positional = operands(args[1:] if name != "uniq" else args)
        return positional[-1:] if len(positional) > 1 else []
    if name in COPIERS:
        for index, arg in enumerate(args):
            if arg in ("-t", "--target-directory") and index + 1 < len(args):
                return [args[index + 1]]
            if arg.startswith("--target-directory="):
                return [arg.split("=", 1)[1]]
        positional = operands(args, frozenset({"-S", "-m", "-o", "-g", "-e"}))
        return positional[-1:] if len(positional) > 1 or name == "ln" else []
    if name in MODIFIERS or name.split(".")[0] in MODIFIERS:
        return operands(args, _MODIFIER_VALUES.get(name, frozenset()))
    if name in ("vim", "vi", "nvim", "ex", "view") and (name == "ex" or any(
            a in ("-e", "-E", "-s", "-es", "-Es") or a.startswith(("-c", "+")) for a in args)):
        return operands(args, frozenset({"-c", "--cmd", "-S", "-u", "-i", "-T", "-w", "-W"}))
    if name in ("awk", "gawk") and any(a in ("-i", "--include") for a in args) and \
            "inplace" in args:  # ``awk -i inplace PROGRAM FILE...``: rewrites the files
        return operands(args, frozenset({"-i", "--include", "-v", "-F", "-f"}))[1:]
    if name == "tar" and "--remove-files" in args:  # the archived files are deleted
        return operands(args, frozenset({"-f", "--file", "-C", "--directory"}))
    if name == "git" and "clone" in args:  # ``git clone URL DIR``: DIR is written
        _, index = git_global_options(args)
        rest = operands(args[index + 1:], frozenset({"-b", "--branch", "-o", "--origin",
                                                         "--depth", "--template", "-c"}))
        return rest[1:2] if args[index:index + 1] == ["clone"] else []
    if name in ("tar", "zip", "7z", "sqlite3", "virtualenv", "venv", "git", "pip"):
        return _made(name, args)
    if name in _COMPRESSORS and not {"-c", "--stdout", "-l", "--list", "-t"} & set(args):
        return operands(args, frozenset({"-S", "--suffix", "-T", "--threads"}))
    if name in ("rename", "prename", "file-rename", "perl-rename"):
        return operands(args)[1:]  # the first is the expression
    found = [] if name in ("ssh", "scp", "mount", "configure") else [
        (arg.split("=", 1)[1] if "=" in arg else args[index + 1] if index + 1 < len(args)
         else "") for index, arg in enumerate(args)
        if (_WRITES_TO.match(arg.split("=", 1)[0]) and arg.split("=", 1)[0] != arg) or (
            _WRITES_TO.match(arg) and index + 1 < len(args))]
    found = [f for f in found if f and not f.startswith("-")]
    for index, arg in enumerate(args):
        value = args[index + 1] if index + 1 < len(args) else ""
        for option in OUTPUT_OPTIONS.get(name, ()):
            short = len(option) == 2 and re.fullmatch(r"-[a-zA-Z]+", arg) is not None
            if arg == option or (short and arg.endswith(option[1])):  # ``-sLo FILE``
                found += [value] if value else []
            elif arg.startswith(option + "=") or (short and arg.startswith(option) and
                                                   len(arg) > 2 and not arg[2:].isalpha()):
                found.append(arg.split("=", 1)[1] if "=" in arg else arg[2:])
    return found


def in_place(args: list[str]) -> bool:
    """``sed -i``, ``-Ei``, ``-ni.bak``, ``perl -pi``: the files are rewritten in place."""
    return any(re.fullmatch(r"-[a-zA-Z]*i.*|--in-place(=.*)?", a) for a in args)


def _made(name: str, args: list[str]) -> list[str]:
    """Where an archive, a bundle, a database or an environment is made."""
    positional = [a for a in args if not a.startswith("-")]
    valued = [args[i + 1] for i, a in enumerate(args[:-1]) if a in (
        "-f", "--file", "-o", "--output", "-t", "--target", "-d", "--dest", "-w",
        "--wheel-dir", "--prefix", "--root")]
    if name == "tar":  # created, not listed or extracted; ``tar czf FILE``, ``-cf FILE``
        bundled = [args[i + 1] for i, a in enumerate(args[:-1]) if re.fullmatch(
            r"-?[a-zA-Z]*f[a-zA-Z]*", a) and (i == 0 or a.startswith("-"))]
        return valued + bundled if any(a.lstrip("-")[:1] in "cru" for a in args[:1]) or \
            "--create" in args else []
    if name in ("zip", "sqlite3", "virtualenv", "venv"):
        return positional[:1]
    if name == "7z":
        return positional[1:2] if positional[:1] == ["a"] else []
    if name == "pip":
        return valued if positional[:1] in (["install"], ["download"], ["wheel"]) else []
    if positional[:1] == ["archive"]:  # git
        return valued
    if positional[:1] == ["init"]:
        return positional[1:2]
    if positional[:2] == ["worktree", "add"] and not re.fullmatch(r"\.\./[^/]+/?",
                                                                  "".join(positional[2:3])):
        return positional[2:3]  # a worktree beside the project (``../wt``) is ordinary
    if positional[:1] == ["apply"]:  # ``--unsafe-paths``: anywhere the patch says
        return [a.split("=", 1)[1] for a in args if a.startswith("--directory=")] + (
            ["/"] if "--unsafe-paths" in args else [])
    return positional[2:3] if positional[:2] == ["bundle", "create"] else []


def _extract_folder(name: str, args: list[str]) -> list[str]:
    """Where an archive is unpacked (``tar -C DIR``, ``unzip -d DIR``, ``7z x -oDIR``)."""
    for index, arg in enumerate(args):
        value = args[index + 1] if index + 1 < len(args) else ""
        if (name in ("tar", "gtar", "bsdtar") and arg in ("-C", "--directory")) or (
                name == "unzip" and arg == "-d") or (name == "cpio" and arg == "-D"):
            return [value] if value else []
        if arg.startswith("--directory="):
            return [arg.split("=", 1)[1]]
        if name.startswith("7z") and arg.startswith("-o") and len(arg) > 2:
            return [arg[2:]]
    return []


#: Redirections that write their target; ``>&`` to a number or ``-`` copies a descriptor.
OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
#: Devices written without changing a file.
_DEVICES = re.compile(r"^/dev/(null|stdout|stderr|tty|zero|fd/\d+)$")


def written(command: SimpleCommand) -> list[str]:
    """Every file ``command`` writes: its redirections', tee's and :func:`write_targets`'."""
    found = [t for op, t in command.redirects if op in OUTPUT_REDIRECTS and not (
        op == ">&" and (t.isdigit() or t == "-"))]
    found += operands(command.args) if command.name == "tee" else []
    return [t for t in [*found, *write_targets(command)] if not _DEVICES.match(t)]


def git_history(sub: str, rest: list[str], options: list[tuple[str, str | None]],
                repo: str | None, cwd: Path | None, policy: Policy) -> Iterator[Found]:
    """git ``sub rest`` destroying history or uncommitted work; ``repo``: where ``-C``,
    ``--git-dir`` or ``--work-tree`` point it."""
    def on_session_branch() -> bool:
        return session_branch(current_branch(cwd or policy.root), policy)

    if repo is not None and sub not in GIT_READ_ONLY and not writable(resolve(repo, cwd, policy),
                                                                        policy):
        yield ("write-outside", f"git {sub} in {repo}, a repository outside the project")
    positional = operands(rest)
    why = ""
    if sub == "push":
        deleting = [a for a in positional[1:] if a.startswith(":")]
        if deleting or any(a in ("-d", "--delete", "--prune") for a in rest):
            why = "git push deleting a remote branch"
        elif positional and re.search(r"://|^[^/\s]+@[^:\s]+:|^/|^\.\.", positional[0]):
            why = f"git push to {positional[0]}, a place the user did not set up as a remote"
    elif sub == "branch" and (flag(rest, "D", ()) or flag(rest, "f", ("--force",))) and \
            not flag(rest, "mMcC", ("--move", "--copy")):
        if any(not b.startswith("ralph/") for b in positional[:1 if not flag(
                rest, "dD", ("--delete",)) else None]):
            why = "git branch -D/-f of a branch that is not a session branch (ralph/...)"
    elif sub == "update-ref" and ("--stdin" in rest or (
            len(positional) > 1 and not positional[0].startswith("refs/heads/ralph/"))):
        why = "git update-ref moves or deletes a ref by hand"
    elif (sub == "symbolic-ref" and flag(rest, "d", ("--delete",))) or (
            sub == "tag" and flag(rest, "df", ("--delete", "--force"))) or (
            sub == "replace" and not flag(rest, "l", ("--list",))):
        why = f"git {sub} {' '.join(rest[:2])} deletes or rewrites a ref"
    elif sub in ("checkout", "switch") and any(
            a in ("-B", "-C", "--force-create") for a in rest) and any(
            not b.startswith("ralph/") for b in positional[:1]):
        why = f"git {sub} -B/-C resets an existing branch"
    elif sub == "switch" and not on_session_branch() and any(
            a in ("-f", "--force", "--discard-changes") for a in rest):
        why = "git switch --discard-changes throws away uncommitted work"
    elif sub == "rm" and flag(rest, "f", ("--force",)) and any(
            p in (".", ":/", "*", "./") for p in positional):
        why = "git rm -f of the whole tree deletes uncommitted work"
    elif sub == "checkout-index" and flag(rest, "f", ("--force",)) and flag(rest, "a",
                                                                                ("--all",)):
        why = "git checkout-index -a -f overwrites uncommitted work"
    elif sub in ("checkout", "restore") and not on_session_branch():
        staged_only = sub == "restore" and "--staged" in rest and "--worktree" not in rest
        paths = rest[rest.index("--") + 1:] if "--" in rest else (
            positional if sub == "restore" else [p for p in positional if p in (".", ":/", "*")])
        if not staged_only and (any(p in (".", ":/", "*", "./") for p in paths) or
                                (sub == "checkout" and any(a in ("-f", "--force") for a in rest))):
            why = f"git {sub} of the whole work tree throws away uncommitted work"
    elif (sub == "symbolic-ref" and len(positional) > 1) or (sub == "read-tree" and flag(
            rest, "u", ("--reset",))) or (sub == "fetch" and any(
            re.match(r"\+.*:(refs/heads/)?[^/]*$", p) or (flag(rest, "f", ("--force",)) and
                                                       re.match(r".*:(refs/heads/)?[^/]*$", p))
            for p in positional[1:])):
        why = f"git {sub} {' '.join(rest[:3])} moves a branch or overwrites the work tree"
    elif sub == "remote" and rest[:1] == ["set-url"]:
        why = "git remote set-url sends the project's later pushes to another place"
    elif sub == "remote" and rest[:1] in (["remove"], ["rm"]):
        why = "git remote remove deletes the remote's branches and where it lives"
    elif sub == "rebase" and any(a == "--onto" or a.startswith("--onto=") for a in rest) and \
            not on_session_branch():
        why = "git rebase --onto drops commits from the user's branch"
    elif (sub == "init" and any(a.startswith("--separate-git-dir") for a in rest)) or (
            sub == "config" and positional[:1] == ["core.bare"]):
        why = f"git {sub} {' '.join(rest[:2])} moves the repository or hides its work tree"
    elif (sub == "repack" and flag(rest, "a", ()) and flag(rest, "d", ()) and not flag(
            rest, "kA", ("--keep-unreachable", "--cruft"))) or (sub == "lfs" and rest[:1] == [
                "prune"]) or (sub == "gc" and any(re.match(
                    r"gc\.\w*(prune|expire)\w*=(now|0|all)$", v or "", re.IGNORECASE)
                    for _, v in options)):
        why = f"git {sub} {' '.join(rest[:2])} deletes unreachable commits or stored files"
    elif sub == "reflog" and rest[:1] in (["expire"], ["delete"]):
        why = "git reflog expire/delete removes the way back to lost commits"
    elif sub == "gc" and any(a.startswith("--prune") and a != "--prune=2.weeks.ago"
                             for a in rest):
        why = "git gc --prune deletes unreachable commits for good"
    elif sub == "prune" or (sub == "update-ref" and "-d" in rest) or sub in (
            "filter-branch", "filter-repo"):
        why = f"git {sub} rewrites or deletes history"
    elif sub == "submodule" and rest[:1] == ["deinit"] and flag(rest, "f", ("--force",)):
        why = "git submodule deinit -f throws away the submodules' uncommitted work"
    elif sub == "config" and any(re.fullmatch(r"gc\.\w*(prune|expire)\w*", a, re.IGNORECASE)
                                 for a in rest) and positional[-1:] in (["now"], ["0"], ["all"]):
        why = "git config gc.*expire now makes the next git gc delete unreachable commits"
    elif sub == "stash" and rest[:1] in (["clear"], ["drop"]):
        why = f"git stash {rest[0]} deletes stashed work"
    elif sub in ("worktree",) and rest[:1] == ["remove"] and ("--force" in rest or "-f" in rest):
        why = "git worktree remove --force deletes uncommitted work"
    if why:
        yield ("git-history", f"{why}; leave it to the user")


def flag(args: list[str], letters: str, long: tuple[str, ...]) -> bool:
    """One of ``letters`` as a short option (alone or bundled, ``-fd``) or a long one."""
    return any(a in long or (re.fullmatch(r"-[a-zA-Z]+", a) is not None and
                             any(c in a[1:] for c in letters)) for a in args)


_GIT_OPTIONS_WITH_VALUE = ("-C", "-c", "--git-dir", "--work-tree", "--namespace")


def git_global_options(args: list[str]) -> tuple[list[tuple[str, str | None]], int]:
    """The options before git's subcommand as ``(option, value or None)``, and its index:
    ``-C dir --git-dir=x status`` -> ``[("-C", "dir"), ("--git-dir", "x")], 3``."""
    index = 0
    found: list[tuple[str, str | None]] = []
    while index < len(args) and args[index].startswith("-"):
        option = args[index]
        if option in _GIT_OPTIONS_WITH_VALUE and index + 1 < len(args):
            found.append((option, args[index + 1]))
            index += 2
            continue
        if option.startswith(("--git-dir=", "--work-tree=")):
            name, _, value = option.partition("=")
            found.append((name, value))
        else:
            found.append((option, None))
        index += 1
    return found, index


def git_sub(args: list[str]) -> tuple[str, list[str]]:
    """git's subcommand and the arguments after it, past git's own options."""
    _, index = git_global_options(args)
    return (args[index], args[index + 1:]) if index < len(args) else ("", [])
