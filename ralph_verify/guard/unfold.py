"""Unfold wrappers and nested scripts, so the guard judges the command that really runs:
``sudo env X=1 timeout 5 busybox rm -rf /`` is ``rm -rf /``; ``bash -c``, ``eval``, heredocs
and interpreters' inline code are parsed again. What feeds a shell and cannot be read (a
download, ``base64 -d``) is reported, not guessed."""

from __future__ import annotations

import itertools
import re
import shlex
from dataclasses import dataclass, field

from ralph_verify.guard.command import GLOB, SimpleCommand, command_name
from ralph_verify.guard.embedded import PROGRAM_VARIABLES, Embedded, from_arguments, variables
from ralph_verify.guard.inline import INLINE_OPTIONS, analyse, inline_code, interpreter_family
from ralph_verify.guard.parse import parse
from ralph_verify.guard.scripts import COMMAND_WORDS, SHELLS, CodeEffects, literal_commands
from ralph_verify.guard.words import (
    ASSIGNMENT,
    UNKNOWN_SUBST,
    find_exec,
    parallel,
    skip_options,
    split_words,
    static_text,
    xargs,
)

#: Interpreters: those with an inline-code option, and those that only read a script.
INTERPRETERS = frozenset(INLINE_OPTIONS) | {"tclsh", "wish", "jshell", "irb"}
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "iwr",
                         "irm", "invoke-webrequest", "invoke-restmethod", "nc", "ncat",
                         "socat", "ftp", "tftp", "lynx", "links", "w3m", "scp", "rsync"})
#: Wrappers that run their arguments as a command: name -> options that take a value.
WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}), "nohup": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}), "ionice": frozenset({"-c", "-n", "-p", "-t"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}), "command": frozenset(), "builtin": frozenset(),
    "exec": frozenset({"-a"}), "setsid": frozenset(), "chronic": frozenset(),
    "unbuffer": frozenset(), "caffeinate": frozenset(), "nocache": frozenset(),
    "torsocks": frozenset(), "proxychains": frozenset({"-f"}), "proxychains4": frozenset({"-f"}),
    "chrt": frozenset(), "taskset": frozenset(), "xvfb-run": frozenset({"-a", "-n", "-s"}),
    "dbus-run-session": frozenset(), "strace": frozenset({"-o", "-e", "-p", "-s", "-u"}),
    "ltrace": frozenset({"-o", "-e", "-p"}), "valgrind": frozenset(), "catchsegv": frozenset(),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user",
                       "--group", "--chdir", "--prompt"}),
    "doas": frozenset({"-u", "-C"}), "pkexec": frozenset({"--user"}), "run0": frozenset(),
    "busybox": frozenset(), "toybox": frozenset(), "faketime": frozenset(),
    "firejail": frozenset(), "unshare": frozenset(), "nsenter": frozenset({"-t"}),
    "systemd-run": frozenset({"-p", "--property", "-u", "--unit", "--on-calendar"}),
    "fakeroot": frozenset({"-l", "--lib", "--faked", "-s", "-i", "-b"}), "coproc": frozenset(),
    "rlwrap": frozenset(),
    "sem": frozenset({"-j", "--id"}), "with-contenv": frozenset(), "tini": frozenset(),
    "dumb-init": frozenset(), "gosu": frozenset(), "su-exec": frozenset(),
    "setpriv": frozenset(), "prlimit": frozenset(), "cpulimit": frozenset({"-l", "-p"}),
}
#: Package runners: ``npx PKG``, ``npm exec PKG`` ... run a package's program.
PACKAGE_RUNNERS = {("npx", ""), ("bunx", ""), ("pnpx", ""), ("uvx", ""), ("npm", "exec"),
                   ("pnpm", "dlx"), ("pnpm", "exec"), ("yarn", "dlx"), ("yarn", "exec"),
                   ("bun", "x"), ("pipx", "run")}
#: Packages whose program is a known command: ``npx rimraf DIR`` is ``rm -rf DIR``.
PACKAGE_COMMANDS: dict[str, list[str]] = {
    "rimraf": ["rm", "-rf"], "del-cli": ["rm", "-rf"], "del": ["rm", "-rf"],
    "trash-cli": ["rm", "-rf"], "trash": ["rm", "-rf"], "rmrf": ["rm", "-rf"],
    "rm-rf": ["rm", "-rf"], "shx": [], "cpy-cli": ["cp"], "make-dir-cli": ["mkdir", "-p"]}
_CODE_OPTIONS = frozenset({"-c", "-e", "-E", "-r", "--eval", "--command", "-Command"})
#: ``cmake -E TOOL``: the command each tool is.
_CMAKE_E = {"rm": ["rm"], "remove": ["rm", "-f"], "remove_directory": ["rm", "-rf"],
            "copy": ["cp"], "copy_directory": ["cp", "-r"], "copy_if_different": ["cp"],
            "rename": ["mv"], "touch": ["touch"], "make_directory": ["mkdir", "-p"],
            "create_symlink": ["ln", "-s"], "environment": ["env"], "env": ["env"],
            "cat": ["cat"], "tar": ["tar"], "true": ["true"], "echo": ["echo"]}
_PERF_VALUES = frozenset({"-o", "--output", "-e", "--event", "-p", "--pid", "-t", "--tid",
                          "-F", "--freq", "-c", "--count", "-C", "--cpu", "-r", "--repeat"})
#: ``uv run CMD`` and friends: (tool, subcommand) that runs the rest as a command.
RUNNERS = {("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("hatch", "run"),
           ("pixi", "run"), ("pipenv", "run"), ("rye", "run"), ("conda", "run"),
           ("mamba", "run"), ("micromamba", "run"), ("nix", "shell"), ("direnv", "exec")}
#: Tools whose ``env`` subcommand manages the project's environments, not ``env(1)``.
_ENV_MANAGERS = frozenset({"poetry", "pdm", "hatch", "pipenv", "pixi", "rye", "conda",
                           "mamba", "micromamba"})
#: Command names that, found among another program's arguments, say it runs them.
#: Programs whose arguments are data (messages, patterns, packages, names) or run elsewhere
#: (a container, a remote host: judged by their own rules), never a local command.
NOT_RUNNERS = frozenset({
    "echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "gh", "jq", "yq",
    "sed", "which", "type", "whereis", "whatis", "apropos", "help", "info", "test", "[", "[[",
    "compgen", "complete", "hash", "docker", "podman", "nerdctl", "kubectl", "helm", "ssh",
    "scp", "sftp", "mosh", "pip", "pip3", "npm", "yarn", "pnpm", "apt", "apt-get", "apt-cache",
    "dpkg", "brew", "dnf", "yum", "apk", "conda", "mamba", "cargo", "go", "gem", "uv", "pipx",
    "cat", "tee", "ls", "rm", "cp", "mv", "touch", "mkdir", "ln", "file", "stat", "head",
    "tail", "wc", "sort", "uniq", "cut", "tr", "diff", "basename", "dirname", "realpath",
    "readlink", "alias", "unalias", "export", "local", "declare", "set", "unset", "cd",
    "pushd", "popd", "source", ".", "eval", "exec", "command", "builtin", "trap", "read",
    "kill", "pkill", "killall", "pgrep", "ps", "tldr", "curl", "wget", "tar", "zip",
    "unzip", "chmod", "chown", "find", "xargs", "parallel", "watch", "su", "runuser",
    "script", "sg", "make",
})
_SHELL_ESCAPE = re.compile(r"(^|[\s:;(])(\+?:?!|:!|\\!|\.shell\s+|\.system\s+|shell\s+|system\s+|"
                           r"execute(-silent)?\()")
_DECODERS = frozenset({"base64", "base32", "xxd", "openssl", "gzip", "gunzip", "zcat",
                       "bzip2", "bunzip2", "xz", "unxz", "rev", "tr", "uudecode", "sed", "awk",
                       "perl", "python", "python3", "printf", "echo"})


@dataclass
class Unfolded:
    """Every command that would run, what unfolding found, and inline code to judge."""

    commands: list[SimpleCommand] = field(default_factory=list)
    #: ``(rule, reason)`` found while unfolding (a download run as code, a fork bomb ...).
    found: list[tuple[str, str]] = field(default_factory=list)
    code: list[tuple[SimpleCommand, CodeEffects]] = field(default_factory=list)
    #: ``(what, path)``: code loaded from a place (``BASH_ENV``, ``git init --template``).
    code_paths: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Context:
    """What unfolding a command line knows: its environment and when it must stop."""

    environ: dict[str, str]
    deadline: float


def unfold_line(line: str, context: Context, depth: int = 0, inside: str = "",
                out: Unfolded | None = None) -> Unfolded:
    """Parse ``line`` and unfold every command in it."""
    out = out if out is not None else Unfolded()
    parsed = parse(line, context.environ, context.deadline, depth)
    for name in parsed.recursive_functions:
        out.found.append(("fork-bomb", f"the function {name!r} calls itself (a fork bomb "
                                       "exhausts the machine's processes)"))
    if parsed.endless_forks:
        out.found.append(("fork-bomb", "an endless loop starts processes in the background "
                                       "(it exhausts the machine's processes)"))
    _sequence_editor([a for a in parsed.assignments if a[0] == "GIT_SEQUENCE_EDITOR"], out)
    from_variables = Embedded()
    variables(parsed.assignments, from_variables)
    from_variables.scripts += _value_commands(parsed.assignments)
    # ``$(...)`` wherever it stands (single quotes later expanded by ``PS4``, ``${x@P}``, an
    # arithmetic subscript, a default value): judged as if it ran.
    from_variables.scripts += [(inner, "a command substitution") for inner in
                               _SUBSTITUTION.findall(line) if inner.strip() != line.strip()]
    _embedded(from_variables, context, depth, out)
    # A trap runs when the shell exits: with the variables the whole line leaves behind.
    at_exit = Context({**context.environ, **dict(parsed.assignments)}, context.deadline)
    for command in parsed.commands:
        if inside and not command.inside:
            command.inside = inside
        _one(command, at_exit if command.name == "trap" else context, depth, out)
    return out


def _embedded(found: Embedded, context: Context, depth: int, out: Unfolded) -> None:
    """Judge what a command's settings, variables or arguments would run."""
    out.found.extend(("hidden-code", f"{why}; the guard cannot tell what it does")
                     for why in found.hidden)
    out.code_paths.extend(found.code_paths)
    for script, outer in found.scripts:
        if "$(...)" in script or "$(stdin)" in script:
            out.found.append(("unparsable", f"{outer} runs a command only known when it runs; "
                                            "write the commands out"))
        else:
            unfold_line(script, context, depth + 1, outer, out)


def _one(command: SimpleCommand, context: Context, depth: int, out: Unfolded) -> None:
    assigned = [(w.split("=", 1)[0], w.split("=", 1)[1]) for w in command.words
                if ASSIGNMENT.match(w)]
    words = _strip(command)
    command.words = words
    out.commands.append(command)
    if not words:
        return
    name, args = command.name, command.args
    first = words[0]
    if "$" in first or first == "" or ("`" in first) or GLOB.search(first):
        out.found.append(("unparsable", f"the command name {first!r} is only known when it "
                                        "runs; write the command out"))
        return
    if (name == "hash" and "-p" in args) or (name in ("declare", "typeset", "local") and any(
            re.fullmatch(r"-[a-zA-Z]*n[a-zA-Z]*", a) for a in args)):
        out.found.append(("unparsable", f"{name} {' '.join(args)[:40]} makes one name stand for "
                                        "another; write the command out"))
    given = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in _CODE_OPTIONS), "")
    if (interpreter_family(name) in INTERPRETERS and UNKNOWN_SUBST in given) or (
            name in ("emacs", "emacsclient") and {"--eval", "-eval", "--exec"} & set(args)):
        out.found.append(("unparsable", f"{name} runs code the guard cannot read (Lisp, or a "
                                        "command substitution); write the code out"))
    _sequence_editor([(a, v) for a, v in itertools.pairwise(args) if name == "git" and
                      a == "-c" and v.startswith("sequence.editor=")], out)
    found = from_arguments(name, args, command.stdin_text)
    variables(assigned, found)
    if name in ("make", "gmake"):  # ``make SHELL=CMD``: variables given as arguments
        assigned += [(a.split("=", 1)[0], a.split("=", 1)[1]) for a in args if ASSIGNMENT.match(a)]
    found.scripts += _value_commands(assigned) + [(v, name) for v in _option_commands(args)]
    command.redirects.extend((">", w) for w in found.writes)
    command.redirects.extend(("<", r) for r in found.reads)
    _embedded(found, context, depth, out)
    if name in SHELLS and _dash_c(args) is None and reads_stdin(args) and \
            command.stdin_text is None and not _sources(command) and \
            interpreter_family(command.inside) in INTERPRETERS | {"awk", "gawk", "mawk"}:
        out.found.append(("inline-code", f"{command.inside} code starts {name}, whose commands "
                                         "come from the code (or a socket); the guard cannot "
                                         "read them"))
    nested: list[tuple[str, str]] = []  # (script, outer name)
    if name in ("ed", "red", "ex") and command.stdin_text:  # ``!CMD`` lines run a shell
        nested.extend((line[1:], name) for line in command.stdin_text.splitlines()
                      if line.startswith("!"))
    if name == "xargs":
        _again(command, xargs(command), context, depth, out)
        return
    if name == "parallel":
        for item in parallel(command):
            _again(command, item, context, depth, out)
        return
    if name == "find":
        for item in find_exec(args):
            _again(command, item, context, depth, out)
    if name in SHELLS:
        script = _dash_c(args)
        if script is not None:
            nested.append((script, name))
        elif reads_stdin(args) and (text := _stdin_text(command, name, out)) is not None:
            nested.append((text, name))
    elif name in ("source", "."):
        if args[:1] in (["/dev/stdin"], ["-"], ["/dev/fd/0"], ["/dev/fd/63"]) and (
                text := _stdin_text(command, name, out)) is not None:
            nested.append((text, name))
    elif name == "eval":
        nested.append((" ".join(args), "eval"))
    elif name == "alias":  # judged as if run: some shells expand aliases
        nested.extend((a.split("=", 1)[1], "alias") for a in args if "=" in a)
    elif name in ("su", "runuser", "script", "sg"):
        flag = next((i for i, a in enumerate(args[:-1])
                     if a == "--command" or re.fullmatch(r"-[a-zA-Z]*c", a)), None)
        if flag is not None:
            nested.append((args[flag + 1], name))
    elif name == "watch":
        rest = skip_options(args, frozenset({"-n", "--interval", "-d"}))
        nested.append((" ".join(rest), name))
    nested.extend(_runs_commands(name, args))
    family = interpreter_family(name)
    if not nested and name not in NOT_RUNNERS and family not in INTERPRETERS and \
            family not in ("awk", "gawk", "mawk", "nawk") and not (
                name in _ENV_MANAGERS and args[:1] == ["env"]):  # ``poetry env remove``
        carried, lines = _carried(args)
        nested.extend((line, name) for line in lines)
        if carried:
            _again(command, carried, context, depth, out)
    if family in ("awk", "gawk", "mawk", "nawk"):  # the program is the first argument
        program = next(iter(skip_options(args, frozenset({"-v", "-F", "-f", "--assign",
                                                          "--field-separator"}))), None)
        if program is not None and "-f" not in args:
            out.code.append((command, analyse("awk", program)))
            nested.extend((line, name) for line in out.code[-1][1].shell)
    if family == "python" and args[:1] == ["-m"] and args[1:2] in (["pip"], ["pip3"],
                                                                   ["venv"]):
        _again(command, args[1:], context, depth, out)  # ``python -m pip``: pip
        return
    if family in INTERPRETERS:
        code = inline_code(name, args)
        if family == "python" and args[:1] == ["-m"] and args[1:2] in (
                ["timeit"], ["pdb"], ["cProfile"], ["profile"], ["trace"]):
            code = "\n".join(a for a in args[2:] if not a.startswith("-"))
        code = "\n".join([*([code] if code else []), *(
            a.split(",", 1)[-1] for a in args if a.startswith("data:"))]) or None
        if code is None and reads_stdin(args, interpreter=True):
            code = _stdin_text(command, name, out, code=True)
        if code is not None:
            effects = analyse(family, code, " ".join(args))
            out.code.append((command, effects))
            nested.extend((line, name) for line in effects.shell)
            if effects.downloads_and_runs:
                out.found.append(("pipe-to-shell", f"{name} code downloads code and runs it"))
            if effects.fork_loop:
                out.found.append(("fork-bomb", f"{name} code forks in a loop"))
    elif name not in SHELLS and name not in NOT_RUNNERS:
        code = _given_code(name, args)
        if code is None and reads_stdin(args, interpreter=True):  # ``jshell <<< CODE``
            code = command.stdin_text if not command.feeds else static_text(_sources(command))
        if code is not None:
            effects = analyse("code", code)
            out.code.append((command, effects))
            nested.extend((line, name) for line in effects.shell)
    _embedded(Embedded(scripts=nested), context, depth, out)


def _again(command: SimpleCommand, words: list[str], context: Context, depth: int,
           out: Unfolded) -> None:
    inner = SimpleCommand(words, [], command.after, [*command.wrappers, command.name],
                          command.inside or command.name, command.substituted_into,
                          command.upstream, command.stdin_text)
    _one(inner, context, depth, out)


def _package_sources(rest: list[str]) -> list[str]:
    """``npx [-p SPEC] PACKAGE ARGS``: the specs and the package, up to its arguments."""
    out, index = [], 0
    while index < len(rest):
        word = rest[index]
        if word in ("-p", "--package", "--spec", "--with", "--from") and index + 1 < len(rest):
            out.append(rest[index + 1])
            index += 2
            continue
        out.append(word)
        if not word.startswith("-"):
            break
        index += 1
    return out


def _sequence_editor(settings: list[tuple[str, str]], out: Unfolded) -> None:
    """``GIT_SEQUENCE_EDITOR="sed -i s/pick/drop/"``: a rebase's todo list edited by a script."""
    if any(v.split("=", 1)[-1].strip() not in ("true", ":") for _, v in settings):
        out.found.append(("git-history", "a scripted sequence editor rewrites the rebase's todo "
                                         "list (drops, squashes commits) without the user"))


def _strip(command: SimpleCommand) -> list[str]:
    """Drop assignments and wrappers (noted in ``command.wrappers``)."""
    words = list(command.words)
    while words:
        while words and ASSIGNMENT.match(words[0]):
            words.pop(0)
        if not words:
            break
        name = command_name(words[0])
        second = words[1] if len(words) > 1 else ""
        if name == "command" and second in ("-v", "-V"):
            break
        if name == "env" and any(w in ("-S", "--split-string") or w.startswith("-S")
                                 for w in words[1:3]):
            index = next(i for i, w in enumerate(words) if w.startswith(("-S", "--split")))
            value = words[index][2:] if words[index] not in ("-S", "--split-string") else (
                words[index + 1] if index + 1 < len(words) else "")
            rest = words[index + (1 if words[index] not in ("-S", "--split-string") else 2):]
            words = split_words(value) + rest
            command.wrappers.append("env")
        elif name == "cmake" and second == "-E" and len(words) > 2 and words[2] in _CMAKE_E:
            command.wrappers.append("cmake")  # ``cmake -E remove_directory DIR`` is ``rm -rf``
            words = _CMAKE_E[words[2]] + words[3:]
        elif name in WRAPPERS and not (name in ("strace", "ltrace") and "-p" in words):
            for index, word in enumerate(words[1:-1], 1):  # ``env -C DIR``: runs in DIR
                if name in ("env", "sudo") and word in ("-C", "--chdir", "-D"):
                    command.chdir = words[index + 1]
                elif name == "env" and word.startswith(("--chdir=", "-C")) and len(word) > 2:
                    command.chdir = word.split("=", 1)[1] if "=" in word else word[2:]
            rest = skip_options(words[1:], WRAPPERS[name], assignments=name in ("env", "sudo"),
                                 duration=name == "timeout", numeric=name in ("chrt",
                                                                              "taskset"))
            if not rest and name in ("env", "sudo", "command", "time", "exec"):
                break  # ``env`` alone prints the environment; ``exec 3>&1`` runs nothing
            command.wrappers.append(name)
            words = rest
        elif (name, "") in PACKAGE_RUNNERS or (name, second) in PACKAGE_RUNNERS:
            command.wrappers.append(name)
            rest = words[1:] if (name, "") in PACKAGE_RUNNERS else words[2:]
            # Where the package comes from (``--from git+URL``, the package itself) is judged
            # with the wrappers; what follows the package is its arguments.
            command.wrappers += [w for w in _package_sources(rest)
                                 if re.search(r"://|^git\+|^git@", w)]
            if "-c" in rest[:-1] or "--call" in rest[:-1]:  # ``npx -c 'CMD'``: a shell line
                index = next(i for i, w in enumerate(rest) if w in ("-c", "--call"))
                words = ["sh", "-c", rest[index + 1]]
                break
            words = skip_options(rest, frozenset({"-p", "--package", "--spec", "--python",
                                                   "--with", "--from"}))
        elif name in ("yarn", "pnpm", "bun") and second.split("@")[0] in PACKAGE_COMMANDS:
            command.wrappers.append(name)  # ``yarn rimraf DIR``: the package's program
            words = words[1:]
        elif name.split("@")[0] in PACKAGE_COMMANDS and name not in ("rm", "del"):
            base = PACKAGE_COMMANDS[name.split("@")[0]]
            words = base + [w for w in words[1:] if not w.startswith("-")] if base else words[1:]
            if not base:
                continue
            break
        elif name == "perf" and second in ("record", "stat", "trace", "top", "sched"):
            command.wrappers.append(name)
            words = skip_options(words[2:], _PERF_VALUES)
        elif words[0] == "{" and command.wrappers[-1:] == ["coproc"]:
            command.wrappers.append("coproc")
            words = words[1:]
        elif name == "hatch" and words[1:3] == ["env", "run"]:
            words = ["hatch", "run", *words[3:]]  # ``hatch env run -- CMD`` is ``hatch run``
        elif (name, second) in RUNNERS:
            command.wrappers.append(f"{name} {second}")
            words = skip_options(words[2:], frozenset({"-n", "--name", "-p", "--prefix",
                                                        "-e", "--env", "--with", "--python"}))
        elif name == "flock":
            command.wrappers.append(name)
            command_at = next((i for i, w in enumerate(words[:-1]) if w in ("-c",
                                                                           "--command")), None)
            if command_at is not None:  # ``flock [-c CMD] FILE [-c CMD]``: a shell line
                words = ["sh", "-c", words[command_at + 1]]
                break
            rest = skip_options(words[1:], frozenset({"-w", "--timeout", "-E"}))
            words = rest[1:]
        elif name == "screen" and any(w.startswith("-") and "m" in w for w in words[1:2]):
            command.wrappers.append(name)
            index = 1
            while index < len(words) and words[index].startswith("-"):
                index += 2 if words[index][-1] in "SceptTh" and len(words[index]) > 1 else 1
            words = words[index:]
        elif name == "chroot":
            command.wrappers.append(name)
            words = skip_options(words[1:], frozenset({"--userspec", "--groups"}))[1:]
        else:
            break
    return words


def _dash_c(args: list[str]) -> str | None:
    """The SCRIPT of ``sh -c SCRIPT`` / ``bash -lc SCRIPT`` / ``sh -o x -c SCRIPT``."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 2
            continue
        if arg.startswith(("-", "+")) and not arg.startswith("--") and "c" in arg[1:]:
            return args[index + 1] if index + 1 < len(args) else ""
        if not arg.startswith(("-", "+")):
            return None
        index += 1
    return None


def reads_stdin(args: list[str], interpreter: bool = False) -> bool:
    """``sh``, ``bash -s``, ``python -``, ``sh /dev/stdin``: the program comes from stdin."""
    if "-s" in args and not interpreter:
        return True
    positional = [a for a in args if not a.startswith(("-", "+")) or a == "-"]  # ``bash +e``
    if interpreter and positional[:1] == ["run"]:  # ``deno run -A -``, ``bun run -``
        positional = positional[1:]
    if interpreter and any(a in ("-m", "-c", "-e", "-E", "-r", "--eval", "-p") for a in args):
        return False
    return not positional or positional[0] in ("-", "/dev/stdin", "/dev/fd/0", "/dev/fd/63")


def _sources(command: SimpleCommand) -> list[SimpleCommand]:
    """The commands that feed ``command``'s stdin (or its process substitutions)."""
    return list(command.feeds) or list(command.upstream)


def _stdin_text(command: SimpleCommand, name: str, out: Unfolded,
                code: bool = False) -> str | None:
    """The script a shell (or the ``code`` an interpreter) reads on stdin, when the line says
    it; a download, and what the guard cannot read, are findings."""
    if command.stdin_text is not None and not command.feeds:
        return command.stdin_text
    sources = _sources(command)
    feeder = " | ".join(s.name for s in sources)
    if any(s.name in DOWNLOADERS for s in sources):
        out.found.append(("pipe-to-shell", f"{name} would run code straight from a download; "
                                           "save it in the project and read it" if code else
                          f"{name} would run a script straight from a download; download it "
                          "to a file in the project and read it first, or do without it"))
        return None
    text = static_text(sources) if sources else None
    if text is None and code and any(s.name in _DECODERS for s in sources):
        out.found.append(("pipe-to-shell", f"{name} runs code decoded at run time ({feeder})"))
    elif text is None and sources and not code:
        out.found.append(("pipe-to-shell", f"{name} reads commands on its standard input from "
                                           f"{feeder}, which the guard cannot read; write the "
                                           "commands out"))
    return text


#: Options that hand a program code or a command (``groovy -e``, ``vim +CMD``, ``lldb -o``).
_GIVEN_CODE = frozenset({"-e", "--eval", "-eval", "-x", "--execute", "-c", "--command", "-ex",
                         "--eval-command", "-o", "--one-line", "-cmd", "--cmd", "-eval-command"})
#: An option (or a setting) whose value is a program to run: ``--pre``, ``-toolexec``,
#: ``--rsh-command``, ``runner="..."``, ``testenv.commands=...``, ``--exec``.
_RUNS_OPTION = re.compile(r"^(--?[\w.-]*?|[\w.-]*?)(exec|command|commands|cmd|shell|runner|"
                          r"wrapper|program|rsh|pre|launcher|editor|pager|askpass|hook)"
                          r"[\w.-]*(=|$)", re.IGNORECASE)
_SUBSTITUTION = re.compile(r"\$\(((?:[^()]|\([^()]*\))+)\)")


def _given_code(name: str, args: list[str]) -> str | None:
    """The code an option hands a program the guard does not know as an interpreter."""
    texts = [args[i + 1] for i, a in enumerate(args[:-1]) if a in _GIVEN_CODE]
    if name in ("vim", "vi", "nvim", "ex", "view"):
        texts += [a[1:] for a in args if a.startswith("+")]
    texts = [t for t in texts if re.search(r"[\s(]", t)]
    return "\n".join(texts) if texts else None


def _value_commands(assigned: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A variable whose value is a command line (``CC='sh -c ...'``, ``RUSTC_WRAPPER``,
    ``TERMINAL``): some program runs it; options inside it (``GOFLAGS=-toolexec=...``)."""
    found = []
    for name, value in assigned:
        if command_name(value.lstrip("|").split(None, 1)[0] if value.strip() else "") in \
                COMMAND_WORDS and name not in PROGRAM_VARIABLES:
            found.append((value.lstrip("|"), name))
        runs = re.search(r"(^|\s)-{1,2}[\w.-]*(exec|command|runner|wrapper|program)[\w.-]*=(.+)",
                         value)  # ``GOFLAGS='-toolexec=rm -rf ~'``: the rest of the value
        found += [(v, name) for v in [*literal_commands(value),
                                      *_option_commands(split_words(value)),
                                      *([runs.group(3)] if runs else [])]]
    return found


def _option_commands(args: list[str]) -> list[str]:
    """The command lines options hand a program to run, whatever the program."""
    found = []
    for index, arg in enumerate(args):
        match = _RUNS_OPTION.match(arg)
        if match is None or (not arg.startswith("-") and "=" not in arg):
            continue
        value = arg.split("=", 1)[1] if "=" in arg else (
            args[index + 1] if index + 1 < len(args) else "")
        value = value.strip("\"'")
        if value and command_name(value.split(None, 1)[0]) in COMMAND_WORDS:
            found.append(value)
    return found


def _carried(args: list[str]) -> tuple[list[str], list[str]]:
    """What an unknown program may run from its arguments: the words from the first naming a
    command (``proot rm -rf ~``), and arguments that are a command line (``man -P 'sh -c ..'``)."""
    lines: list[str] = []
    for index, arg in enumerate(args):
        if command_name(arg) in COMMAND_WORDS:
            return args[index:], lines
        escape = _SHELL_ESCAPE.search(arg)
        line = arg[escape.end():].rstrip(")") if escape else arg
        if " " in line and command_name(line.split(None, 1)[0]) in COMMAND_WORDS:
            lines.append(line)
    return [], lines


#: Options whose value is a command the program runs (``rsync -e CMD``, ``tar -I CMD``).
_RUN_VALUES = {"rsync": ("-e",), "tar": ("-I",), "gtar": ("-I",), "scp": ("-S",),
               "sftp": ("-S",), "zip": ("-TT", "--unzip-command")}


def _runs_commands(name: str, args: list[str]) -> list[tuple[str, str]]:
    """Shell commands some tools run from their options: ``git -c alias.x='!CMD'``,
    ``vim -c ':!CMD'``, ``tar --checkpoint-action=exec=CMD``, ``ssh -o ProxyCommand=CMD``."""
    found = []
    for index, arg in enumerate(args):
        value = args[index + 1] if index + 1 < len(args) else ""
        if name in ("vim", "vi", "nvim", "ex", "view") and (
                (arg == "-c" and value.lstrip(":").startswith("!")) or arg.startswith("+:!")):
            found.append((value if arg == "-c" else arg[1:]).lstrip(":")[1:])
        elif name in ("tar", "gtar", "bsdtar") and arg.startswith("--checkpoint-action=exec="):
            found.append(arg.split("=", 2)[-1])  # ``--to-command=`` is any program's option
        elif arg in _RUN_VALUES.get(name, ()) and value:
            found.append(value)
        elif name == "git" and arg.startswith(("-O", "--open-files-in-pager=")) and "grep" in args:
            found.append(arg.split("=", 1)[1] if "=" in arg else arg[2:])
        if name.startswith("sqlite") or name in ("vim", "vi", "nvim", "ex", "view"):
            written = re.match(r"[:+]?\s*\.?(w|write|sav|saveas|wq|x|output|once|save|backup)"
                               r"!?\s+(\S+)\s*$", arg)  # the file an editor's command writes
            found += [f": >> {shlex.quote(written.group(2))}"] if written else []
    return [(script, name) for script in found]
