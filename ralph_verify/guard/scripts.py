"""Inline code of languages read by patterns (Perl, Ruby, Node, PHP, Lua, R, awk, Tcl, expect,
PowerShell, AppleScript; Python is read with :mod:`ast` in :mod:`.inline`), judged by what it
would do: shell commands, files deleted or written, secrets touched. A target computed from
the home folder or the environment is reported as such, never guessed."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from ralph_verify.guard.command import SECRET_NAME
from ralph_verify.guard.words import split_words

DELETE = ("rmtree", "remove", "unlink", "rmdir", "removedirs", "remove_tree", "rm_rf", "rm_r",
          "rm_f", "rm", "rmSync", "rmdirSync", "unlinkSync", "rimraf", "delete", "Remove-Item",
          "emptyDirSync", "removeSync", "file.remove", "rmtree", "unlink_all",
          "delete-directory", "delete-file", "rm-rf")
WRITE = ("write_text", "write_bytes", "writeFileSync", "appendFileSync", "writeFile",
         "appendFile", "file_put_contents", "truncate", "chmod", "chown", "makedirs",
         "mkdir", "symlink", "copyFileSync", "renameSync", "rename", "replace", "move",
         "copy", "copy2", "copyfile", "copytree", "mkdirSync", "symlinkSync", "chmodSync",
         "writeLines", "cat_file", "Set-Content", "Out-File", "Add-Content", "ftruncate")
READ = ("read_text", "read_bytes", "readFileSync", "readFile", "file_get_contents",
        "createReadStream", "readTextFile", "read", "readlines", "load", "loadtxt",
        "read_csv", "dotenv_values", "load_dotenv", "IO.read", "File.read", "readlink",
        "readLines", "Get-Content", "fopen")
SHELL = ("system", "popen", "Popen", "run", "call", "check_call", "check_output",
         "getoutput", "getstatusoutput", "exec", "execSync", "spawn", "spawnSync",
         "execFile", "execFileSync", "shell_exec", "passthru", "proc_open", "qx", "spawnp",
         "execl", "execlp", "execv", "execvp", "execve", "execvpe", "posix_spawn",
         "posix_spawnp", "startfile", "Command", "capture2", "capture3", "execute", "system2",
         "pcntl_exec", "Start-Process", "spawnlp", "spawnl", "spawnv", "spawnvp", "popen2",
         "popen3", "capture2e", "pipeline", "sh", "shell")
DOWNLOAD = re.compile(r"urlopen|urlretrieve|requests\.(get|post)|httpx|http\.client|"
                      r"https?\.get|fetch\(|LWP|HTTP::Tiny|Net::HTTP|open-uri|URI\.open|"
                      r"curl_exec|file_get_contents\(\s*['\"]https?:|Invoke-WebRequest|iwr|"
                      r"WebClient|DownloadString", re.IGNORECASE)
RUN_CODE = re.compile(r"\bexec\s*\(|\beval\b|\bcompile\s*\(|\bsystem\s*\(|\bsubprocess\b|"
                      r"\brequire\s*\(|Function\s*\(|\bload\s*\(|\bIEX\b|Invoke-Expression",
                      re.IGNORECASE)
ENV_DUMP = re.compile(
    r"process\.env(?!\s*[.\[])|%ENV\b|\bENV\s*\.\s*(to_h|to_a|each|inspect|keys|values|map)|"
    r"(?:p|puts|pp|print)\s+ENV\b|getenv\(\s*\)|\$_ENV(?!\s*\[)|Deno\.env\.toObject|"
    r"Get-ChildItem\s+env:|\bdir\s+env:|ls\s+env:|Sys\.getenv\(\s*\)|\bin\s+ENVIRON\b|"
    r"ENVIRON(?!\s*\[)|os\.environb?\b(?!\s*[\[.])|environb?\.(items|copy|values)\(|"
    r"phpinfo\(")
FORK_LOOP = re.compile(r"fork\b.*\b(while|for|loop)\b|\b(while|for|loop)\b.*fork\b|"
                       r"fork\s+while\s+fork", re.DOTALL)
HOME = re.compile(r"expanduser|Path\.home|os\.environ|getenv|ENV\[|process\.env|homedir|"
                  r"\$ENV|\bHOME\b|USERPROFILE|Dir\.home|path\.expand|~/|\$HOME|home-dir|"
                  r"user_home|HomeDirectory")
STRING = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"|`([^`]*)`")
_DELETING = re.compile(r"\b(unlink|rmtree|remove_tree|rm_rf|rm_r|rmdir|rmSync|unlinkSync|"
                       r"rimraf|File\.delete|FileUtils\.rm|file\.remove|remove)\b")
#: ``os.environ['NAME']``, ``$ENV{NAME}``, ``process.env.NAME``, ``ENVIRON["NAME"]`` ...
_ENV_READ = re.compile(r"(?:environ|ENV|env|getenv|Sys\.getenv|ENVIRON|\$_ENV|getEnv)"
                       r"\s*(?:\[|\{|\.get\s*\(|\(|\.)\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)")
_SOCKET = re.compile(r"\bsocket\b|create_connection|TCPSocket|fsockopen|IO::Socket|"
                     r"\bnet\.(connect|Socket|createConnection)|require\(\s*['\"]net['\"]|"
                     r"/inet[46]?/|stream_socket_client|socket\.tcp|Socket\.new|"
                     r"System\.Net\.Sockets|\bnc\s|/dev/tcp/")
_SPAWN = re.compile(r"dup2|fdopen|popen|spawn|exec|system|subprocess|child_process|"
                    r"/bin/(ba|z|da)?sh|\|&|\bIO\.popen|Kernel\.", re.IGNORECASE)
#: The home folder interpolated into a string (``"$ENV{HOME}/.ssh"``, ``"#{Dir.home}/x"``).
_HOME_IN_STRING = re.compile(r"\$ENV\{\s*['\"]?HOME['\"]?\s*\}|#\{\s*(ENV\[\s*['\"]HOME['\"]\s*\]|"
                             r"Dir\.home)\s*\}|\$\{\s*(process\.env\.HOME|os\.homedir\(\))\s*\}|"
                             r"\$\{?HOME\b\}?")
_ENDLESS = re.compile(r"while\s*\(?\s*(1|true|True|!0)\s*\)?|loop\s*(do|\{)|for\s*\(\s*;\s*;"
                      r"\s*\)|while\s+true\s+do|repeat\b")
_AWK_PIPE = re.compile(r"\|\s*\"([^\"]+)\"|\"([^\"]+)\"\s*\|\s*getline")
_AWK_OUT = re.compile(r"\bprintf?\b[^;}|>]*>>?\s*(\"([^\"]+)\"|ENVIRON\b)")
_TCL_RUN = re.compile(r"(?:^|[;\n\[{])\s*(?:exec|spawn)\s+([^;\n\]]+)")
_APPLESCRIPT = re.compile(r"do shell script\s+\"((?:[^\"\\]|\\.)*)\"")
_PATH_TOKEN = re.compile(r"(?<![\w$@%])(~[\w./*-]*|/[\w.*-][\w./*-]*)")


SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "mksh", "yash",
                    "posh", "tcsh", "csh", "rbash", "hush"})
#: Command names that, found among another program's arguments, say it runs them.
COMMAND_WORDS = SHELLS | {"rm", "shred", "dd", "truncate", "find", "xargs", "chmod", "chown",
                          "kill", "pkill", "killall", "curl", "wget", "nc", "ncat", "socat",
                          "scp", "rsync", "mv", "cp", "tee", "sudo", "env", "cat", "python",
                          "python3", "perl", "ruby", "node", "php", "git", "eval", "exec"}
_LIST_GAP = re.compile(r"[\s,]*(\(\s*list\s*|\[|arrayOf\(|\()?[\s,]*")


def literal_commands(code: str) -> list[str]:
    """Command lines a program's code holds as string literals, in any language:
    ``"rm -rf /home".execute()``, ``ProcessBuilder("rm", "-rf", "/home")``, ``(list "-rf")``."""
    runs: list[list[str]] = []
    end = -1
    for match in STRING.finditer(code):
        text = next(g for g in match.groups() if g is not None)
        if runs and _LIST_GAP.fullmatch(code[end:match.start()]):
            runs[-1].append(text)
        else:
            runs.append([text])
        end = match.end()
    return [run[0] if len(run) == 1 else shlex.join(run) for run in runs
            if run[0].strip() and run[0].split(None, 1)[0].rsplit("/", 1)[-1] in COMMAND_WORDS]


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
    #: Secret-looking environment variables the code reads (``os.environ['API_KEY']``).
    secret_vars: list[str] = field(default_factory=list)
    #: The code opens a socket and runs a shell or hands it its descriptors.
    reverse: bool = False
    #: A file is deleted or written at a path the code computes (not from a literal).
    unknown_target: bool = False


_KILL_ALL = re.compile(r"\bkill\s*\(?\s*(-1|[\w\"':]+\s*,\s*-1)\b")
_KILL_PARENT = re.compile(r"\bkill\W+[^;]*\b(getppid|ppid)\b")


def common(code: str, effects: CodeEffects) -> None:
    """What any language's code is judged by besides its calls."""
    effects.secret_vars += [m.group(1) for m in _ENV_READ.finditer(code)
                            if SECRET_NAME.search(m.group(1))]
    effects.env_dump = effects.env_dump or bool(ENV_DUMP.search(code))
    effects.reverse = bool(_SOCKET.search(code) and _SPAWN.search(code))
    if _ENDLESS.search(code) and re.search(r"\bfork\b|spawn|exec|system|Popen|popen", code):
        effects.fork_loop = True
    if "dotenv_values" in code:  # python-dotenv reads .env into a value the code can print
        effects.reads.append(".env")
    if _KILL_ALL.search(code):  # ``os.kill(-1, 9)``: judged as the shell's ``kill -9 -1``
        effects.shell.append("kill -9 -1")
    if _KILL_PARENT.search(code):  # ``os.kill(os.getppid(), 9)``: the agent or ralph-verify
        effects.shell.append("kill -9 $PPID")


def patterns(family: str, code: str, effects: CodeEffects) -> None:
    """Calls of ``code`` in a language other than Python, read by patterns."""
    if family in ("tclsh", "expect", "wish"):
        effects.shell += [m.group(1).replace("{", "'").replace("}", "'")
                          for m in _TCL_RUN.finditer(code)]
        for match in re.finditer(r"\bfile\s+(delete|rename|copy|mkdir)\s+(-\w+\s+)*(\S+)", code):
            target = match.group(3)
            if "$" in target or "[" in target:
                effects.computed = True
            else:
                (effects.deletes if match.group(1) == "delete" else effects.writes).append(target)
    if family in ("pwsh", "powershell"):
        _powershell(code, effects)
    if family.endswith("awk"):
        for match in _AWK_PIPE.finditer(code):
            effects.shell.append(match.group(1) or match.group(2))
        for match in _AWK_OUT.finditer(code):  # ``print > "FILE"``: awk's own redirection
            if match.group(2) is not None:
                effects.writes.append(match.group(2))
            else:
                effects.computed = True
    effects.shell += [m.group(1) for m in _APPLESCRIPT.finditer(code)]
    for name, literals, raw in calls(code):
        short = name.rsplit(".", 1)[-1]
        if short.endswith("Sync") and short not in (*DELETE, *WRITE, *READ, *SHELL):
            short = short[:-4]  # node's fs.xSync is fs.x
        if short in ("eval", "Function", "instance_eval", "class_eval", "evalSync",
                     "runInThisContext", "runInNewContext", "runInContext", "Script",
                     "compileFunction") and not re.fullmatch(r"\s*(['\"]).*\1\s*", raw,
                                                             re.DOTALL):
            effects.obscure = True
        if short in SHELL or name in ("qx", "%x"):
            if literals and (" " in literals[0] or len(literals) == 1):
                effects.shell.append(literals[0])
                # ``os.execute("rm -rf " .. os.getenv("HOME"))``: the rest is computed.
                effects.computed = effects.computed or bool(HOME.search(raw))
            elif literals:  # ``exec "rm", "-rf", ENV["HOME"]``: an argument computed
                effects.shell.append(shlex.join(literals))
                effects.computed = effects.computed or bool(HOME.search(raw))
            elif raw.strip() and family != "code":  # an unknown language: judged by words
                effects.computed = True
        elif short in DELETE or name.endswith(("File.delete", "Dir.rmdir")):
            _literal(effects.deletes, literals, raw, effects)
        elif short in ("open", "fopen"):
            _open(literals, raw, effects)
        elif short in WRITE or name.endswith(("File.write", "IO.write")):
            _literal(effects.writes, literals[:1] if short != "renameSync" else literals,
                     raw, effects)
        elif short in READ or name.endswith(("File.read", "IO.read", "IO.readlines")):
            _literal(effects.reads, literals[:1], raw, effects)
    for match in re.finditer(r"`([^`]+)`", code):
        if "${" not in match.group(1):
            effects.shell.append(match.group(1))
    if _DELETING.search(code) and not effects.deletes:
        # ``unlink glob "/etc/*"``, ``unlink <~/.ssh/*>``: a deletion somewhere, and paths
        # named: judge them all.
        effects.deletes.extend(s for s in effects.strings if s.startswith(("/", "~")))
        effects.deletes.extend(m.group(1) for m in _PATH_TOKEN.finditer(code))


def _open(literals: list[str], raw: str, effects: CodeEffects) -> None:
    """Perl's and Ruby's ``open``: a mode, a path, or a pipe to a command."""
    piped = [lit for lit in literals if lit in ("|-", "-|") or lit.startswith("|") or
             lit.rstrip().endswith("|")]
    if piped:
        commands = [lit.strip("|- ") for lit in literals if lit.strip("|- ")]
        effects.shell.extend(commands or ["sh"])
        return
    mode = " ".join(literals)
    bucket = effects.writes if re.search(r"^[+]?[>wa]|['\"][wa+]", mode + raw) \
        else effects.reads
    for literal in literals:
        path = _HOME_IN_STRING.sub("~", literal.lstrip("<>+| ").strip())
        if path and path not in ("r", "w", "a", "rb", "wb", "<", ">", ">>"):
            bucket.append(path)


def _powershell(code: str, effects: CodeEffects) -> None:
    """PowerShell's cmdlets, written like shell commands."""
    for statement in re.split(r"[;\n|]", code):
        words = split_words(statement)
        if not words:
            continue
        verb, rest = words[0].lower(), [w for w in words[1:] if not w.startswith("-")]
        if verb in ("remove-item", "ri", "rm", "del", "erase", "rd", "rmdir"):
            effects.deletes.extend(rest)
        elif verb in ("set-content", "out-file", "add-content", "new-item", "sc", "ac"):
            effects.writes.extend(rest[:1])
        elif verb in ("get-content", "gc", "cat", "type"):
            effects.reads.extend(rest[:1])
        elif verb in ("invoke-expression", "iex"):
            effects.obscure = True
        elif verb in ("start-process", "saps", "start", "cmd", "cmd.exe", "bash", "sh"):
            effects.shell.append(" ".join(words[1:]) if verb.startswith(("start", "saps"))
                                 else statement)


def _literal(bucket: list[str], literals: list[str], raw: str, effects: CodeEffects) -> None:
    if HOME.search(raw):
        effects.computed = True
    bucket.extend(_HOME_IN_STRING.sub("~", literal) for literal in literals)


_CALL = re.compile(r"([A-Za-z_][\w:.]*|%x|qx)\s*(\(|\{|\s(?=['\"$<\w%@:]))")


def calls(code: str) -> list[tuple[str, list[str], str]]:
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
        literals = [next(g for g in m.groups() if g is not None) for m in STRING.finditer(raw)]
        if match.group(1) in ("qx", "%x"):
            literals = [raw]
        found.append((match.group(1).replace("::", "."), literals, raw))
    return found
