"""What bash makes of one word (braces, ``$'...'``, ``$(echo rm)``), and the words ``xargs``,
``parallel`` and ``find -exec`` build for the command they run."""

from __future__ import annotations

import codecs
import re
import shlex
from collections.abc import Sequence

from ralph_verify.guard.command import FOUND, SimpleCommand

ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

UNKNOWN_SUBST = "$(...)"


_CONVERSION = re.compile(r"%[-+ #0-9.]*[a-zA-Z%]")


def printf(args: Sequence[str]) -> str:
    """What ``printf FORMAT ARGS`` prints: each conversion filled with the next argument,
    the format used again while arguments remain (``printf 'r%s' m``, ``'rm -rf %s' ~``)."""
    fmt, rest = args[0], list(args[1:])
    if not any(m.group() != "%%" for m in _CONVERSION.finditer(fmt)):
        return fmt.replace("%%", "%")
    out = []
    while True:
        out.append(_CONVERSION.sub(lambda m: "%" if m.group() == "%%" else
                                   (rest.pop(0) if rest else ""), fmt))
        if not rest:
            return "".join(out)


def static_output(commands: Sequence[SimpleCommand]) -> str:
    """What ``$(echo rm)`` / ``$(printf %s x)`` prints; :data:`UNKNOWN_SUBST` otherwise."""
    text = static_text(commands)
    if text is not None and "$" not in text and "\\" not in text:
        return text.rstrip("\n")  # as bash drops a substitution's last newlines
    if len(commands) == 1 and commands[0].name == "mktemp":
        return mktemp(commands[0].args)
    return UNKNOWN_SUBST


def mktemp(args: list[str]) -> str:
    """The fresh name ``mktemp`` prints: its template (``tmp.XXXXXXXXXX`` when none) in
    ``-p DIR``, in the temp folder (``-t``, ``--tmpdir``, no template; ``/tmp`` stands for
    ``$TMPDIR``), else where the template says (relative: in the working folder)."""
    folder, template, rest = "", "", list(args)
    while rest:
        arg = rest.pop(0)
        if re.fullmatch(r"-[dqut]*p.*", arg) or arg.startswith("--tmpdir="):  # '': the default
            folder = (arg.partition("=")[2] if arg.startswith("--") else (
                arg[arg.index("p") + 1:] or (rest.pop(0) if rest else ""))) or "/tmp"
        elif arg == "--tmpdir" or re.fullmatch(r"-[dqu]*t[dqu]*", arg):
            folder = folder or "/tmp"
        elif arg == "--suffix" and rest:
            rest.pop(0)
        elif not arg.startswith("-"):
            template = arg
    if not template:
        template, folder = "tmp.XXXXXXXXXX", folder or "/tmp"
    return f"{folder.rstrip('/')}/{template}" if folder else template


def unescape(raw: str) -> str:
    return re.sub(r"\\(.)", r"\1", raw.replace("\\\n", ""), flags=re.DOTALL)


def ansi_c(body: str) -> str:
    try:
        return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return body


def brace_expand(text: str, limit: int = 256) -> list[str]:
    """Bash brace expansion of one word: ``{rm,-rf,~}`` -> ``rm -rf ~``; ``a{b,c}`` ..."""
    depth, start = 0, -1
    for index, char in enumerate(text):
        if char == "{" and (index == 0 or text[index - 1] != "$"):
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                options = _split_top(text[start + 1:index])
                if len(options) < 2:
                    range_match = re.fullmatch(r"(-?\d+)\.\.(-?\d+)|([a-zA-Z])\.\.([a-zA-Z])",
                                               text[start + 1:index])
                    if not range_match:
                        continue
                    options = _range(range_match)
                head, tail = text[:start], text[index + 1:]
                out: list[str] = []
                for option in options:
                    for rest in brace_expand(option + tail, limit):
                        out.append(head + rest)
                        if len(out) >= limit:
                            return out
                return out
    return [text]


def _split_top(inner: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in inner:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current += char
    parts.append(current)
    return parts if len(parts) > 1 else [inner]


def _range(match: re.Match[str]) -> list[str]:
    if match.group(1) is not None:
        low, high = int(match.group(1)), int(match.group(2))
        step = 1 if high >= low else -1
        return [str(n) for n in range(low, high + step, step)][:256]
    low_c, high_c = ord(match.group(3)), ord(match.group(4))
    step = 1 if high_c >= low_c else -1
    return [chr(n) for n in range(low_c, high_c + step, step)]


def static_text(sources: Sequence[SimpleCommand]) -> str | None:
    """What an ``echo`` or ``printf`` of literal words (or a ``cat`` of a heredoc) prints;
    ``None`` for anything else."""
    if len(sources) == 1 and sources[0].name == "cat" and not sources[0].args and \
            sources[0].stdin_text is not None:
        return sources[0].stdin_text
    if len(sources) != 1 or sources[0].name not in ("echo", "printf") or sources[0].redirects:
        return None
    source = sources[0]
    flags = [a for a in source.args if re.fullmatch(r"-[neE]+", a)]
    args = [a for a in source.args if a not in flags]
    escapes = source.name == "printf" or any("e" in f for f in flags)
    text = printf(args) if source.name == "printf" and args else " ".join(args)
    if escapes:
        text = ansi_c(re.sub(r"\\([0-7]{1,3})", lambda m: f"\\{int(m.group(1), 8):03o}", text))
    return None if "$(...)" in text or "$(stdin)" in text else text


def stdin_words(command: SimpleCommand) -> list[str]:
    """What ``xargs`` would append: the words of an ``echo``, the paths ``find`` yields ..."""
    if command.stdin_text is not None:
        return command.stdin_text.split()
    if not command.upstream:
        return ["$(stdin)"]
    producer = command.upstream[-1]
    text = static_text([producer])
    if text is not None:
        return text.split()
    args = [a for a in producer.args if not a.startswith("-")]
    if producer.name == "find":
        return [find_target(start, producer.args) for start in find_starts(producer.args)]
    if producer.name == "ls":  # the names given (files), and what is in them (folders)
        return [*(args or ["."]), *(f"{a.rstrip('/') or '/'}/{FOUND}" for a in args or ["."])]
    if producer.name in ("fd", "fdfind"):
        return [f"{a.rstrip('/') or '/'}/{FOUND}" for a in args[1:] or args or ["."]]
    if producer.name == "git" or (producer.name in ("grep", "rg", "egrep") and any(
            a.startswith("-") and "l" in a for a in producer.args)):
        return [f"./{FOUND}"]
    return ["$(stdin)"]


def xargs(command: SimpleCommand) -> list[str]:
    options = frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file",
                         "--delimiter", "--max-args", "--max-procs", "--replace", "-e"})
    args = command.args
    replace = None
    for index, arg in enumerate(args):
        if arg == "-I" and index + 1 < len(args):
            replace = args[index + 1]
        elif arg.startswith("-I") and len(arg) > 2:
            replace = arg[2:]
        elif arg in ("-i", "--replace"):
            replace = "{}"
    rest = skip_options(args, options) or ["echo"]
    given = stdin_words(command)
    if replace:
        return [w.replace(replace, given[0] if given else "") for w in rest] + given[1:]
    return rest + given


def parallel(command: SimpleCommand) -> list[list[str]]:
    args = command.args
    if ":::" not in args:
        base = skip_options(args, frozenset({"-j", "--jobs", "-S"}))
        return [[*base, *stdin_words(command)]] if base else []
    cut = args.index(":::")
    base = skip_options(args[:cut], frozenset({"-j", "--jobs", "-S"}))
    items = [a for a in args[cut + 1:] if a not in (":::", "::::")]
    if not base:
        return [split_words(item) for item in items]
    if len(base) == 1 and " " in base[0]:  # ``parallel 'rm -rf {}' ::: ...``: a shell line
        base = split_words(base[0])
    found = []
    for item in items:
        found.append([w.replace("{}", item) for w in base] if any("{}" in w for w in base)
                     else [*base, item])
    return found


#: ``find`` tests that pick some files; without one, ``find DIR`` yields all of DIR.
FIND_TESTS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
                        "-regex", "-iregex", "-type", "-newer", "-mtime", "-mmin", "-atime",
                        "-amin", "-ctime", "-cmin", "-size", "-empty", "-user", "-group",
                        "-perm", "-links", "-inum", "-samefile", "-lname", "-ilname"})


def find_starts(args: list[str]) -> list[str]:
    """The folders ``find`` starts from: the words before its first test (``.`` if none)."""
    starts = []
    for arg in args:
        if arg.startswith(("-", "(", "!")):
            break
        starts.append(arg)
    return starts or ["."]


def find_target(start: str, args: list[str]) -> str:
    """What ``find START ...`` hands on: somewhere inside START when a test picks files
    (``START/{found}``), START itself and all in it otherwise (``find . -delete``)."""
    if not FIND_TESTS & set(args) or {"-o", "-or", "-not", "!"} & set(args):
        return start  # no test, or tests the guard cannot read as picking a few files
    names = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-name", "-iname")]
    if len(names) == 1:  # ``-name .git``: that one; ``-name '*.pem'``: judged by the pattern
        return f"{start.rstrip('/') or '/'}/{names[0]}"
    return f"{start.rstrip('/') or '/'}/{FOUND}"


def find_exec(args: list[str]) -> list[list[str]]:
    starts = find_starts(args)
    found: list[list[str]] = []
    index = 0
    while index < len(args):
        if args[index] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            words = args[index + 1:end]
            for start in starts:
                target = find_target(start, args)
                found.append([w.replace("{}", target) for w in words])
            index = end
        index += 1
    return found


def skip_options(words: list[str], with_value: frozenset[str], *, assignments: bool = False,
                  duration: bool = False, numeric: bool = False) -> list[str]:
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if assignments and ASSIGNMENT.match(word):
            index += 1
        elif word.startswith("-") and len(word) > 1:
            index += 2 if word in with_value else 1
        else:
            break
    rest = words[index:]
    if duration and rest and re.fullmatch(r"[0-9.]+[smhd]?", rest[0]):
        rest = rest[1:]
    if numeric and rest and re.fullmatch(r"[0-9a-fx,.-]+", rest[0]):
        rest = rest[1:]
    return rest


def split_words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()
