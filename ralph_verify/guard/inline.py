"""What an interpreter's inline code (``python -c``, ``perl -e`` ...) does to files, secrets and
the shell: Python read with :mod:`ast`, the other languages by :mod:`.scripts`' patterns."""

from __future__ import annotations

import ast
import contextlib
import re
import shlex

from ralph_verify.guard.scripts import (
    COMMAND_WORDS,
    DELETE,
    DOWNLOAD,
    ENV_DUMP,
    FORK_LOOP,
    HOME,
    READ,
    RUN_CODE,
    SHELL,
    STRING,
    WRITE,
    CodeEffects,
    calls,
    common,
    literal_commands,
    patterns,
)

#: Interpreter family -> the options whose value is inline code.
INLINE_OPTIONS: dict[str, tuple[str, ...]] = {
    "python": ("-c",), "pypy": ("-c",), "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"), "perl": ("-e", "-E"), "ruby": ("-e",),
    "php": ("-r",), "deno": ("eval",), "bun": ("-e", "--eval"), "lua": ("-e",),
    "osascript": ("-e",), "pwsh": ("-c", "-Command"), "powershell": ("-c", "-Command"),
    "luajit": ("-e",), "R": ("-e",), "Rscript": ("-e",), "expect": ("-c",),
    "julia": ("-e", "--eval"), "guile": ("-c",), "emacs": ("--eval",), "sbcl": ("--eval",),
}
def inline_code(name: str, args: list[str]) -> str | None:
    """The code of ``python -c CODE``, ``perl -le CODE`` ...; ``None`` when there is none."""
    family = interpreter_family(name)
    options = INLINE_OPTIONS.get(family)
    if not options:
        return None
    bundled = {"perl": "eE", "ruby": "e", "python": "c", "pypy": "c"}.get(family, "")
    for index, arg in enumerate(args):
        if arg in options or (bundled and re.fullmatch(r"-[a-zA-Z]+", arg) is not None
                              and arg[-1] in bundled):
            return args[index + 1] if index + 1 < len(args) else None
        previous = args[index - 1] if index else ""
        if arg == "-m" or (not arg.startswith("-") and family != "deno" and previous not in (
                "-W", "-X", "-I", "-M", "-r", "--require", "-C")):
            return None
    return None


def interpreter_family(name: str) -> str:
    """``python3.12`` -> ``python``; ``nodejs`` -> ``nodejs``."""
    return re.sub(r"[0-9.]+$", "", name)


def analyse(family: str, code: str, command_line: str = "") -> CodeEffects:
    """The effects of ``code`` written for interpreter ``family`` (``python``, ``perl`` ...);
    ``command_line``: all the interpreter's arguments (``-MLWP::Simple`` loads a module)."""
    effects = CodeEffects(strings=[next(g for g in m.groups() if g is not None)
                                   for m in STRING.finditer(code)])
    effects.downloads_and_runs = bool(DOWNLOAD.search(command_line or code)
                                      and RUN_CODE.search(code))
    effects.env_dump = bool(ENV_DUMP.search(code))
    effects.fork_loop = bool(re.search(r"\bfork\b", code) and FORK_LOOP.search(code))
    tree = None
    if family.startswith(("python", "pypy")):
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            tree = None
    if tree is not None:
        _python(tree, effects)
        if effects.unknown_target:  # ``[p.unlink() for p in Path.home().rglob('*')]``
            effects.computed = effects.computed or bool(HOME.search(code))
            effects.deletes += [s for s in effects.strings if s.startswith(("/", "~", ".."))]
    else:
        patterns(family, code, effects)
        effects.shell += literal_commands(code)  # ``ProcessBuilder("rm", "-rf", "/home")``
        if family == "code":  # a language the guard does not know: what its names say
            effects.computed = effects.computed or bool(
                re.search(r"(?i)delete|remove|unlink|rm_?rf|rmtree|system|shell|exec|spawn",
                          code) and HOME.search(code))
            effects.shell += [raw for name, literals, raw in calls(code) if not literals and
                              re.search(r"(?i)cmd|system|shell|exec|spawn", name) and
                              raw.split(None, 1)[:1] and raw.split()[0] in COMMAND_WORDS]
    common(code, effects)
    return effects


def _python(tree: ast.AST, effects: CodeEffects) -> None:
    known: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            value = _const(node.value, known)
            if value is not None:
                known[node.targets[0].id] = value
    aliases = _aliases(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "environ" and \
                isinstance(node.value, ast.Name) and node.value.id == "os":
            effects.env_dump = effects.env_dump or _environ_dumped(node, tree)
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node.func)
        head, _, tail = name.partition(".")
        if head in aliases:  # ``from os import system as s; s(...)`` is ``os.system``
            name = aliases[head] + (f".{tail}" if tail else "")
        if isinstance(node.func, ast.Call) and _call_name(node.func.func) == "getattr" \
                and len(node.func.args) > 1:  # ``getattr(os, 'sys' + 'tem')(...)``
            attribute = _const(node.func.args[1], known)
            name = f"{_call_name(node.func.args[0])}.{attribute}" if attribute else ""
            effects.obscure = effects.obscure or attribute is None
        target = _target(node, known)
        args = [_const(a, known) for a in node.args]
        if name in ("exec", "eval", "compile", "builtins.exec", "builtins.eval"):
            inner = None
            with contextlib.suppress(SyntaxError, ValueError):
                inner = ast.parse(args[0]) if args and args[0] is not None else None
            if inner is None:
                effects.obscure = effects.obscure or not (node.args and isinstance(
                    node.args[0], ast.Constant))
            else:
                _python(inner, effects)
            continue
        if name == "getattr" and len(node.args) > 1 and args[1] is None:
            effects.obscure = True
        if name in ("open", "io.open", "os.open", "codecs.open") or name.endswith(".open"):
            mode = _const(node.args[1], known) if len(node.args) > 1 else None
            for keyword in node.keywords:
                if keyword.arg == "mode":
                    mode = _const(keyword.value, known)
            bucket = effects.writes if mode and re.search(r"[wax+]", mode) else effects.reads
            _add(bucket, target, effects, node)
        short = name.rsplit(".", 1)[-1]
        if short in ("fork", "forkpty") and name.startswith("os"):
            continue
        if short in SHELL and (name.startswith(("os.", "subprocess", "pty", "commands")) or
                                short in ("system", "popen", "Popen", "check_output")):
            shell = _shell_line(node, known)
            if shell is None:
                effects.computed = True
            else:
                effects.shell.append(shell)
        elif short in DELETE:
            _add(effects.deletes, target, effects, node)
        elif short in ("move", "rename", "replace", "renames"):
            for value in args[:2]:
                _add(effects.writes, value, effects, node)
        elif short in ("copy", "copy2", "copyfile", "copytree", "symlink", "link"):
            _add(effects.reads, args[0] if args else None, effects, node)
            _add(effects.writes, args[1] if len(args) > 1 else None, effects, node)
        elif short in WRITE:
            _add(effects.writes, target, effects, node)
        elif short in READ:
            _add(effects.reads, target, effects, node)


def _environ_dumped(node: ast.Attribute, tree: ast.AST) -> bool:
    """``os.environ`` used whole (printed, copied), not ``os.environ['X']`` / ``.get``."""
    for parent in ast.walk(tree):
        if isinstance(parent, ast.Subscript) and parent.value is node:
            return False
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return parent.attr in ("items", "copy", "values", "__repr__", "__str__")
    return True


def _add(bucket: list[str], value: str | None, effects: CodeEffects, node: ast.AST) -> None:
    if value is not None:
        bucket.append(value)
    elif HOME.search(ast.unparse(node)):
        effects.computed = True
    elif bucket is not effects.reads:
        effects.unknown_target = True


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Names bound by imports: ``import subprocess as sp`` -> ``{"sp": "subprocess"}``,
    ``from os import system`` -> ``{"system": "os.system"}``."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update({a.asname: a.name for a in node.names if a.asname})
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    return found


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        inner = _call_name(func.value) if isinstance(func.value, (ast.Name, ast.Attribute)) \
            else ""
        return f"{inner}.{func.attr}" if inner else func.attr
    return ""


def _const(node: ast.expr, known: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.Attribute) and _call_name(node) == "sys.executable":
        return "python3"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _const(node.left, known), _const(node.right, known)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [_const(v, known) if not isinstance(v, ast.FormattedValue) else
                 _const(v.value, known) for v in node.values]
        return "".join(p for p in parts if p is not None) if None not in parts else None
    if isinstance(node, ast.Call) and _call_name(node.func).endswith(("path.join", "Path")):
        parts = [_const(a, known) for a in node.args]
        if parts and None not in parts:
            return "/".join(p for p in parts if p is not None)
    return None


def _target(call: ast.Call, known: dict[str, str]) -> str | None:
    """The path a call acts on: ``Path('x')`` it is called on, or its first argument."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(receiver, ast.Call) and _call_name(receiver.func).endswith(
            ("Path", "expanduser", "resolve", "absolute", "joinpath")):
        value = _target(receiver, known)
        if value is not None:
            return value
    if call.args:
        value = _const(call.args[0], known)
        if value is not None:
            return value
    func = call.func
    while isinstance(func, ast.Attribute):
        inner = func.value
        if isinstance(inner, ast.Call):
            if not _call_name(inner.func).endswith(("Path", "expanduser", "resolve",
                                                    "absolute", "joinpath")):
                return None  # ``__import__('shutil').rmtree(x)``: not a path
            value = _target(inner, known)
            if value is not None:
                return value
            func = inner.func
        else:
            return _const(inner, known)
    return None


def _shell_line(call: ast.Call, known: dict[str, str]) -> str | None:
    args = call.args
    short = _call_name(call.func).rsplit(".", 1)[-1]
    listed = next((a for a in args if isinstance(a, (ast.List, ast.Tuple))), None)
    if listed is not None:  # ``execv(path, [argv])``, ``run(['rm', '-rf', x])``
        words = [_const(e, known) for e in listed.elts]
        if None in words:
            return None
        return shlex.join([w for w in words if w is not None])
    if short.startswith(("exec", "spawn", "posix_spawn")) and short not in ("exec", "spawn"):
        # ``execlp(path, arg0, ...)``, ``spawnlp(mode, path, arg0, ...)``: the arguments.
        strings = [_const(a, known) for a in args if not isinstance(a, ast.Attribute)]
        if None in strings or len(strings) < 2:
            return None
        return shlex.join([w for w in strings[1:] if w is not None])
    if not args:
        return None
    return _const(args[0], known)
