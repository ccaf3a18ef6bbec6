"""What an interpreter's inline code does: ``python -c``, ``perl -e``, ``node -e``, ``ruby -e``.

The guard cannot run the code, so it reads it for effects: files removed, written or read
(and at which literal paths), commands handed to a shell (``os.system``, ``subprocess``,
``child_process``, backticks: these are parsed as shell and judged like any other command),
code downloaded then run, the whole environment printed, processes forked in a loop.
Python is read with :mod:`ast` (string constants assigned to names are followed); the
other languages with patterns over their calls and string literals.
"""

from __future__ import annotations

import ast
import contextlib
import re
import shlex
from dataclasses import dataclass, field

#: Interpreter family -> the options whose value is inline code.
INLINE_OPTIONS: dict[str, tuple[str, ...]] = {
    "python": ("-c",), "pypy": ("-c",), "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"), "perl": ("-e", "-E"), "ruby": ("-e",),
    "php": ("-r",), "deno": ("eval",), "bun": ("-e", "--eval"), "lua": ("-e",),
    "osascript": ("-e",), "pwsh": ("-c", "-Command"), "powershell": ("-c", "-Command"),
}
_DELETE = ("rmtree", "remove", "unlink", "rmdir", "removedirs", "remove_tree", "rm_rf", "rm_r",
           "rm_f", "rm", "rmSync", "rmdirSync", "unlinkSync", "rimraf", "delete", "Remove-Item",
           "emptyDirSync", "removeSync")
_WRITE = ("write_text", "write_bytes", "writeFileSync", "appendFileSync", "writeFile",
          "appendFile", "file_put_contents", "truncate", "chmod", "chown", "makedirs",
          "mkdir", "symlink", "copyFileSync", "renameSync", "rename", "replace", "move",
          "copy", "copy2", "copyfile", "copytree", "mkdirSync", "symlinkSync", "chmodSync")
_READ = ("read_text", "read_bytes", "readFileSync", "readFile", "file_get_contents",
         "createReadStream", "readTextFile", "read", "readlines", "load", "loadtxt",
         "read_csv", "dotenv_values", "load_dotenv", "IO.read", "File.read", "readlink")
_SHELL = ("system", "popen", "Popen", "run", "call", "check_call", "check_output",
          "getoutput", "getstatusoutput", "exec", "execSync", "spawn", "spawnSync",
          "execFile", "execFileSync", "shell_exec", "passthru", "proc_open", "qx", "spawnp",
          "execl", "execlp", "execv", "execvp", "execve", "execvpe", "posix_spawn",
          "posix_spawnp", "startfile", "Command", "capture2", "capture3")
_DOWNLOAD = re.compile(r"urlopen|urlretrieve|requests\.(get|post)|httpx|http\.client|"
                       r"https?\.get|fetch\(|LWP|HTTP::Tiny|Net::HTTP|open-uri|URI\.open|"
                       r"curl_exec|file_get_contents\(\s*['\"]https?:|Invoke-WebRequest|iwr|"
                       r"WebClient|DownloadString", re.IGNORECASE)
_RUN_CODE = re.compile(r"\bexec\s*\(|\beval\b|\bcompile\s*\(|\bsystem\s*\(|\bsubprocess\b|"
                       r"\brequire\s*\(|Function\s*\(|\bload\s*\(|\bIEX\b|Invoke-Expression",
                       re.IGNORECASE)
_ENV_DUMP = re.compile(
    r"process\.env(?!\s*[.\[])|%ENV\b|\bENV\s*\.\s*(to_h|to_a|each|inspect|keys|values|map)|"
    r"(?:p|puts|pp|print)\s+ENV\b|getenv\(\s*\)|\$_ENV(?!\s*\[)|Deno\.env\.toObject|"
    r"Get-ChildItem\s+env:|\bdir\s+env:|ls\s+env:")
_FORK_LOOP = re.compile(r"fork\b.*\b(while|for|loop)\b|\b(while|for|loop)\b.*fork\b|"
                        r"fork\s+while\s+fork", re.DOTALL)
_HOME = re.compile(r"expanduser|Path\.home|os\.environ|getenv|ENV\[|process\.env|homedir|"
                   r"\$ENV|\bHOME\b|USERPROFILE")
_DELETING = re.compile(r"\b(unlink|rmtree|remove_tree|rm_rf|rm_r|rmdir|rmSync|unlinkSync|"
                       r"rimraf|File\.delete|FileUtils\.rm)\b")
_STRING = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"|`([^`]*)`")


@dataclass
class CodeEffects:
    """What a piece of inline code would do, as far as it can be read."""

    deletes: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    #: Shell command lines the code would run.
    shell: list[str] = field(default_factory=list)
    #: A file-changing or process-spawning call whose target is computed at run time
    #: from the home folder or the environment.
    computed: bool = False
    downloads_and_runs: bool = False
    #: Code that builds code or names at run time (``exec(x)``, ``getattr(os, a + b)``).
    obscure: bool = False
    env_dump: bool = False
    fork_loop: bool = False
    strings: list[str] = field(default_factory=list)


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
                                   for m in _STRING.finditer(code)])
    effects.downloads_and_runs = bool(_DOWNLOAD.search(command_line or code)
                                      and _RUN_CODE.search(code))
    effects.env_dump = bool(_ENV_DUMP.search(code))
    effects.fork_loop = bool(re.search(r"\bfork\b", code) and _FORK_LOOP.search(code))
    tree = None
    if family.startswith(("python", "pypy")):
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            tree = None
    if tree is not None:
        _python(tree, effects)
    else:
        _patterns(code, effects)
    return effects


def _python(tree: ast.AST, effects: CodeEffects) -> None:
    known: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            value = _const(node.value, known)
            if value is not None:
                known[node.targets[0].id] = value
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "environ" and \
                isinstance(node.value, ast.Name) and node.value.id == "os":
            effects.env_dump = effects.env_dump or _environ_dumped(node, tree)
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node.func)
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
        if short in _SHELL and (name.startswith(("os.", "subprocess", "pty", "commands")) or
                                short in ("system", "popen", "Popen", "check_output")):
            shell = _shell_line(node, known)
            if shell is None:
                effects.computed = True
            else:
                effects.shell.append(shell)
        elif short in _DELETE:
            _add(effects.deletes, target, effects, node)
        elif short in ("move", "rename", "replace", "renames"):
            for value in args[:2]:
                _add(effects.writes, value, effects, node)
        elif short in ("copy", "copy2", "copyfile", "copytree", "symlink", "link"):
            _add(effects.reads, args[0] if args else None, effects, node)
            _add(effects.writes, args[1] if len(args) > 1 else None, effects, node)
        elif short in _WRITE:
            _add(effects.writes, target, effects, node)
        elif short in _READ:
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
    elif _HOME.search(ast.unparse(node)):
        effects.computed = True


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
    name = _call_name(call.func)
    if name.rsplit(".", 1)[-1].startswith(("exec", "spawn", "posix_spawn")) and len(args) > 1:
        args = args[1:]
    if not args:
        return None
    first = args[0]
    if isinstance(first, (ast.List, ast.Tuple)):
        words = [_const(e, known) for e in first.elts]
        if None in words:
            return None
        return shlex.join([w for w in words if w is not None])
    return _const(first, known)


# --- other languages: patterns -----------------------------------------------------------


def _patterns(code: str, effects: CodeEffects) -> None:
    for name, literals, raw in _calls(code):
        short = name.rsplit(".", 1)[-1]
        if short in ("eval", "Function", "instance_eval", "class_eval", "evalSync") and not \
                re.fullmatch(r"\s*(['\"]).*\1\s*", raw, re.DOTALL):
            effects.obscure = True
        if short in _SHELL or name in ("qx", "%x"):
            if literals and short.startswith(("spawn", "execFile", "execv", "execl")):
                effects.shell.append(shlex.join(literals))
            elif literals:
                effects.shell.append(literals[0])
            else:
                effects.computed = True
        elif short in _DELETE or name.endswith(("File.delete", "Dir.rmdir")):
            _literal(effects.deletes, literals, raw, effects)
        elif short in ("open", "fopen"):
            mode = " ".join(literals)
            bucket = effects.writes if re.search(r"^[+]?[>wa]|['\"][wa+]", mode + raw) \
                else effects.reads
            for literal in literals:
                path = literal.lstrip("<>+| ").strip()
                if path and path not in ("r", "w", "a", "rb", "wb", "<", ">", ">>"):
                    bucket.append(path)
        elif short in _WRITE or name.endswith(("File.write", "IO.write")):
            _literal(effects.writes, literals[:1] if short != "renameSync" else literals,
                     raw, effects)
        elif short in _READ or name.endswith(("File.read", "IO.read", "IO.readlines")):
            _literal(effects.reads, literals[:1], raw, effects)
    for match in re.finditer(r"`([^`]+)`", code):
        if "${" not in match.group(1):
            effects.shell.append(match.group(1))
    if _DELETING.search(code) and not effects.deletes:
        # ``unlink glob "/etc/*"``: a deletion somewhere, and paths named: judge them all.
        effects.deletes.extend(s for s in effects.strings if s.startswith(("/", "~")))


def _literal(bucket: list[str], literals: list[str], raw: str, effects: CodeEffects) -> None:
    if literals:
        bucket.extend(literals)
    elif _HOME.search(raw):
        effects.computed = True


_CALL = re.compile(r"([A-Za-z_][\w:.]*|%x|qx)\s*(\(|\{|\s(?=['\"]))")


def _calls(code: str) -> list[tuple[str, list[str], str]]:
    """``(name, string literals of its arguments, argument text)`` for each call."""
    found = []
    for match in _CALL.finditer(code):
        opener = match.group(2)
        start = match.end()
        if opener in ("(", "{"):
            closer = {"(": ")", "{": "}"}[opener]
            depth, index = 1, start
            while index < len(code) and depth:
                depth += {opener: 1, closer: -1}.get(code[index], 0)
                index += 1
            raw = code[start:index - 1]
        else:
            end = re.search(r"[;\n]", code[start:])
            raw = code[start:start + end.start()] if end else code[start:]
        literals = [next(g for g in m.groups() if g is not None) for m in _STRING.finditer(raw)]
        if match.group(1) in ("qx", "%x"):
            literals = [raw]
        found.append((match.group(1).replace("::", "."), literals, raw))
    return found
