"""Split a shell command line into simple commands, for the safety guard.

Not a shell: enough of POSIX sh to see what a command line would run —
pipelines, ``&&``/``||``/``;``, subshells, redirections, environment prefixes,
wrappers (``env``, ``nohup``, ``timeout``, ``xargs`` ...), ``sh -c SCRIPT``,
``eval`` and command substitutions (``$(...)``, backticks), which are parsed
recursively. When in doubt it errs towards seeing more commands, never fewer:
a ``#`` does not start a comment (text after it is still inspected), and an
unbalanced quote falls back to a plain split.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

#: Tokens that end a simple command.
SEPARATORS = frozenset({"|", "|&", "||", "&&", ";", ";;", "&", "\n", "(", ")", "<(", ">(",
                        "{", "}"})
PIPES = frozenset({"|", "|&"})
#: Redirection operators; the next token is their target.
REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<", "<<", "<<<", "<>", ">&", "<&"})
OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_OPERATORS = sorted(SEPARATORS | REDIRECTS, key=len, reverse=True)
_PUNCTUATION = "();<>|&\n"
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: Wrappers that run their arguments as a command: name -> options that take a value.
WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-t"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "xargs": frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file",
                        "--delimiter", "--max-args", "--max-procs", "--replace"}),
    "watch": frozenset({"-n", "--interval", "-d"}),
    "chronic": frozenset(),
    "caffeinate": frozenset(),
    "unbuffer": frozenset(),
}
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "mksh", "busybox"})
MAX_DEPTH = 4


@dataclass
class SimpleCommand:
    """One command of a line: its words (name first) and redirections, as written."""

    words: list[str]
    redirects: list[tuple[str, str]] = field(default_factory=list)
    #: The operator before this command (``|`` when stdin comes from the previous one).
    after: str = ""
    #: Commands a wrapper (``env``, ``xargs`` ...) or ``sudo`` was put in front of.
    wrappers: list[str] = field(default_factory=list)
    #: For the commands of a ``sh -c`` script or of ``eval``: the outer command's name.
    inside: str = ""
    #: For the commands of a ``$(...)`` or backtick substitution: the name of the command
    #: whose word holds it (``sh`` in ``sh -c "$(curl ...)"``).
    substituted_into: str = ""

    @property
    def name(self) -> str:
        return command_name(self.words[0]) if self.words else ""

    @property
    def args(self) -> list[str]:
        return self.words[1:]


def command_name(word: str) -> str:
    """``/usr/bin/sudo`` -> ``sudo``; ``\\rm`` -> ``rm``."""
    return word.lstrip("\\").replace("\\", "/").rsplit("/", 1)[-1]


def tokenize(line: str) -> list[str]:
    """Shell words and operators; an unbalanced quote never raises."""
    for candidate in (line, line + "'", line + '"'):
        lexer = shlex.shlex(candidate, posix=True, punctuation_chars=_PUNCTUATION)
        lexer.whitespace = " \t\r"
        lexer.whitespace_split = True
        lexer.commenters = ""
        try:
            tokens = list(lexer)
        except ValueError:
            continue
        return _split_operators(tokens)
    spaced = re.sub(r"([;&|<>()\n])", r" \1 ", line)
    return _split_operators(spaced.split(" "))


def _split_operators(tokens: list[str]) -> list[str]:
    """``)|`` -> ``)``, ``|``: shlex joins adjacent punctuation into one token."""
    out: list[str] = []
    for token in tokens:
        if not token:
            continue
        if token in SEPARATORS or token in REDIRECTS or set(token) - set(_PUNCTUATION):
            out.append(token)
            continue
        rest = token
        while rest:
            op = next((o for o in _OPERATORS if rest.startswith(o)), rest[0])
            out.append(op)
            rest = rest[len(op):]
    return out


def parse(line: str, depth: int = 0) -> list[SimpleCommand]:
    """Every simple command ``line`` would run, in order, nested scripts included."""
    commands: list[SimpleCommand] = []
    current = SimpleCommand([])
    tokens = tokenize(line)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in SEPARATORS:
            if current.words or current.redirects:
                commands.append(current)
            current = SimpleCommand([], after=token)
        elif token in REDIRECTS:
            target = tokens[index + 1] if index + 1 < len(tokens) else ""
            if current.words and current.words[-1].isdigit():
                current.words.pop()  # the fd of ``2>``
            current.redirects.append((token, target))
            index += 1
        else:
            current.words.append(token)
        index += 1
    if current.words or current.redirects:
        commands.append(current)
    result: list[SimpleCommand] = []
    for command in commands:
        result.extend(_expand(command, depth))
    return result


def _expand(command: SimpleCommand, depth: int) -> list[SimpleCommand]:
    """Strip assignments and wrappers; add the commands of nested scripts."""
    words = list(command.words)
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)
    wrappers: list[str] = []
    while words:
        name = command_name(words[0])
        if name in WRAPPERS:
            wrappers.append(name)
            words = _skip_options(words[1:], WRAPPERS[name], assignments=name == "env",
                                  duration=name == "timeout")
        elif name in ("sudo", "doas", "pkexec"):
            wrappers.append(name)
            words = _skip_options(words[1:], frozenset({"-u", "-g", "-C", "-D", "-h", "-p",
                                                        "-r", "-t", "-U", "--user",
                                                        "--group"}), assignments=True)
        else:
            break
    found = [SimpleCommand(words, command.redirects, command.after, wrappers, command.inside,
                           command.substituted_into)]
    if depth >= MAX_DEPTH:
        return found
    name = command_name(words[0]) if words else ""
    scripts: list[str] = []
    if name in SHELLS:
        scripts += _dash_c_scripts(words[1:])
    elif name == "eval":
        scripts.append(" ".join(words[1:]))
    for script in scripts:
        for inner in parse(script, depth + 1):
            inner.inside = inner.inside or name
            found.append(inner)
    for word in [*words, *(target for _, target in command.redirects)]:
        for script in substitutions(word):
            for inner in parse(script, depth + 1):
                inner.substituted_into = inner.substituted_into or name or "$(...)"
                found.append(inner)
    return found


def _skip_options(words: list[str], with_value: frozenset[str], *, assignments: bool = False,
                  duration: bool = False) -> list[str]:
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if assignments and _ASSIGNMENT.match(word):
            index += 1
        elif word.startswith("-") and len(word) > 1:
            index += 2 if word in with_value else 1
        else:
            break
    rest = words[index:]
    if duration and rest and re.fullmatch(r"[0-9.]+[smhd]?", rest[0]):
        rest = rest[1:]
    return rest


def _dash_c_scripts(args: list[str]) -> list[str]:
    """The SCRIPT of ``sh -c SCRIPT`` / ``bash -lc SCRIPT``."""
    for index, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            return args[index + 1:index + 2]
        if not arg.startswith("-"):
            break
    return []


def substitutions(word: str) -> list[str]:
    """The scripts of ``$(...)`` and backtick substitutions inside one word."""
    found: list[str] = []
    start = word.find("$(")
    while start != -1:
        depth, index = 1, start + 2
        while index < len(word) and depth:
            depth += {"(": 1, ")": -1}.get(word[index], 0)
            index += 1
        found.append(word[start + 2:index - 1 if depth == 0 else index])
        start = word.find("$(", index)
    parts = word.split("`")
    found += [parts[i] for i in range(1, len(parts), 2)]
    return [script for script in found if script.strip()]


_GIT_OPTIONS_WITH_VALUE = ("-C", "-c", "--git-dir", "--work-tree", "--namespace")


def git_global_options(args: list[str]) -> tuple[list[tuple[str, str | None]], int]:
    """The options before git's subcommand, as ``(option, value)``, and the subcommand's index.

    ``git -C dir -c k=v --git-dir=x status`` -> ``[("-C", "dir"), ("-c", "k=v"),
    ("--git-dir", "x")], 5``. An option without a value has ``None``.
    """
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
