"""The safety guard: :func:`evaluate` refuses destructive or leaking tool calls by what they
would do; what cannot be read is refused, never let through (docs/safety.md)."""

from __future__ import annotations

import fnmatch
import re
import shlex
import time
from collections.abc import Iterator, Mapping
from itertools import starmap
from pathlib import Path
from typing import Any

from ralph_verify.guard.command import MAX_BYTES, SimpleCommand, Unreadable
from ralph_verify.guard.effects import grepped
from ralph_verify.guard.families import write_targets
from ralph_verify.guard.judge import command_refusals, paths, write_refusals
from ralph_verify.guard.net import network_findings
from ralph_verify.guard.policy import (
    DEFAULT_METADATA_HOSTS,
    DEFAULT_PUBLIC_PATTERNS,
    DEFAULT_SECRET_PATTERNS,
    Policy,
    Refusal,
    cd_target,
    current_branch,
    holds_secrets,
    is_inside,
    is_secret,
    resolve,
    writable,
)
from ralph_verify.guard.rules import PRIORITY
from ralph_verify.guard.scripts import SHELLS
from ralph_verify.guard.tamper import CACHE_WORD, cache_read, changed
from ralph_verify.guard.unfold import (
    DOWNLOADERS,
    INTERPRETERS,
    Context,
    Unfolded,
    unfold_line,
)

__all__ = ["DEFAULT_METADATA_HOSTS", "DEFAULT_PUBLIC_PATTERNS", "DEFAULT_SECRET_PATTERNS",
           "Policy", "Refusal", "current_branch", "evaluate"]

WRITE_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
               "NotebookEdit": "notebook_path"}
READ_TOOLS = {"Read": "file_path", "Grep": "path", "Glob": "path", "NotebookRead": "notebook_path"}
SHELL_TOOLS = {"Bash", "bash", "shell", "exec_command", "local_shell", "container.exec"}
#: Variables a command line may use whose values the guard substitutes (paths only:
#: secrets stay ``$NAME`` so that printing them is seen).
KNOWN_VARIABLES = ("HOME", "USER", "LOGNAME", "TMPDIR", "SHELL", "LANG")
#: Keys of other tools' inputs that name a file (MCP servers' file tools, other agents).
PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target", "destination",
             "source", "paths", "notebook_path", "directory", "dir")
_OTHER_WRITER = re.compile(r"write|edit|creat|move|renam|delet|remov|patch|append|upload|"
                           r"put|save|copy|mkdir|touch|replace", re.IGNORECASE)
#: A tool input larger than this (all its strings but a file's content) is refused unread.
MAX_INPUT = 4 * MAX_BYTES


def evaluate(tool_name: str, tool_input: Mapping[str, Any], policy: Policy) -> Refusal | None:
    """The most telling rule this tool call breaks, or ``None``."""
    deadline = time.monotonic() + policy.budget
    try:
        found = [r for r in _refusals(tool_name, tool_input, policy, deadline)
                 if r.rule not in policy.disabled]
    except Unreadable as exc:
        found = [Refusal("unparsable", f"the guard cannot read this call: {exc}")]
    except RecursionError:
        found = [Refusal("unparsable", "the guard cannot read this call: it nests too deep")]
    # The most telling rule names the refusal (and counts in the statistics).
    return min(found, key=lambda r: PRIORITY.index(r.rule) if r.rule in PRIORITY
               else len(PRIORITY)) if found else None


def _refusals(tool_name: str, tool_input: Mapping[str, Any], policy: Policy,
              deadline: float) -> Iterator[Refusal]:
    cwd = policy.cwd or policy.root
    # A mention in a file's content is not a request; a command or URL is.
    scanned = {} if tool_name in WRITE_TOOLS or tool_name in READ_TOOLS or \
        tool_name == "apply_patch" else tool_input
    command = _shell_command(tool_name, tool_input)
    if command is None:
        texts = list(_strings(scanned))
        if sum(len(t) for t in texts) > MAX_INPUT:
            raise Unreadable(f"the input is over {MAX_INPUT} characters")
        for text in texts:
            lowered = text.lower()
            host = next((h for h in policy.metadata_hosts if h.lower() in lowered), None)
            if host is not None:
                yield Refusal("metadata", f"the call addresses {host}, a cloud metadata "
                                          "service that hands out credentials; it is off "
                                          "limits")
        yield from starmap(Refusal, network_findings(
            texts, tool_name in ("WebFetch", "fetch"), policy.allow_hosts,
            policy.refuse_localhost))
    if tool_name in WRITE_TOOLS:
        yield from _write_tool(tool_name, tool_input.get(WRITE_TOOLS[tool_name]), cwd, policy)
    elif command is None and _OTHER_WRITER.search(tool_name):
        # An MCP server's or another agent's tool that writes (``mcp__fs__write_file``): its
        # paths are judged as the Write tool's are.
        for key in PATH_KEYS:
            yield from _write_tool(tool_name, tool_input.get(key), cwd, policy)
    if tool_name == "apply_patch":  # Codex: the files a patch adds, changes, deletes, moves
        patch = str(tool_input.get("command") or tool_input.get("input") or "")
        for path in re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: "
                               r"(.+)$", patch, flags=re.MULTILINE):
            yield from _write_tool(tool_name, (path[0] or path[1]).strip(), cwd, policy)
    readers = (READ_TOOLS[tool_name], "glob") if tool_name in READ_TOOLS else \
        PATH_KEYS if command is None and tool_name not in WRITE_TOOLS and not re.search(
            r"(^|_)(ls|list)", tool_name, re.IGNORECASE) else ()
    if readers:
        for key in readers:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                named = resolve(value, cwd, policy)
                found = paths(value, cwd, policy) if key == "glob" else [named]
                if any(cache_read(p, policy) for p in [*found, named]):
                    yield Refusal("tamper", f"{tool_name} of {value}: ralph-verify's cache "
                                            "holds the cancel key; it is the user's")
                if any(is_secret(p, policy) for p in [*found, named]) or (
                        tool_name == "Grep" and holds_secrets(found[0], policy)):
                    yield Refusal("read-secrets", f"{tool_name} of {value}: it looks like a "
                                                  "secret (.env, key, credentials) and must "
                                                  "not be read")
    if command is not None:
        yield from _shell_refusals(command, cwd, policy, deadline)


def _write_tool(tool: str, path: Any, cwd: Path, policy: Policy) -> Iterator[Refusal]:
    if isinstance(path, str) and path:
        yield from write_refusals(path, resolve(path, cwd, policy), f"{tool} of", policy)


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
    if (tool_name not in SHELL_TOOLS and value is None) or tool_name == "apply_patch":
        return None
    if isinstance(value, list):
        words = [str(word) for word in value]
        # ``["bash", "-lc", SCRIPT]`` (Codex) is the script itself.
        if len(words) == 3 and words[1] in ("-c", "-lc") and words[0].endswith("sh"):
            return words[2]
        return shlex.join(words)
    return value if isinstance(value, str) else None


def _shell_refusals(line: str, cwd: Path, policy: Policy,
                    deadline: float) -> Iterator[Refusal]:
    environ = {k: policy.environ[k] for k in KNOWN_VARIABLES if k in policy.environ}
    environ["HOME"] = str(policy.home)
    environ["PWD"] = str(cwd)
    unfolded = unfold_line(line, Context(environ, deadline))
    yield from starmap(Refusal, unfolded.found)
    for what, value in unfolded.code_paths:
        if not is_inside(resolve(value, cwd, policy), policy):
            yield Refusal("hidden-code", f"{what}={value} loads code from outside the project "
                                         "(or from a place only known when it runs); the "
                                         "guard cannot read it")
    current: Path | None = cwd
    yield from _written_and_run(unfolded, policy)
    added = {c.args[2] for c in unfolded.commands if c.name == "git" and c.args[:2] == [
        "remote", "add"] and len(c.args) > 2}
    if any(c.name == "git" and c.args[:1] == ["push"] and added & set(c.args) for c in
           unfolded.commands):
        yield Refusal("exfiltration", "git push to a remote added in the same call sends the "
                                      "project's history to a place the user did not set up")
    for command in unfolded.commands:
        if time.monotonic() > deadline:
            raise Unreadable("the guard ran out of time deciding it")
        if command.name in ("cd", "pushd"):
            current = cd_target(command.args, current, policy)
            continue
        here = cd_target([command.chdir], current, policy) if command.chdir else current
        if policy.allow_commands and any(fnmatch.fnmatchcase(" ".join(command.words), pattern)
                                         for pattern in policy.allow_commands):
            continue  # the user allowed this command ([tool.ralph-verify.guard] allow-commands)
        for refusal in command_refusals(command, here, policy):
            if refusal.rule != "env-dump" or not grepped(command, unfolded.commands):
                yield refusal
    yield from _code_refusals(unfolded, current, policy)


#: What a runner runs besides its arguments: ``make`` its Makefile, ``pytest`` the
#: conftest.py it imports, ``npm test`` the scripts of package.json.
_RUNS_FILES = {"make": ("Makefile", "makefile", "GNUmakefile"), "pytest": ("conftest.py",),
               "npm": ("package.json",), "yarn": ("package.json",), "pnpm": ("package.json",)}
_WRITERS_TEXT = ("echo", "printf", "cat")


def _written_and_run(unfolded: Unfolded, policy: Policy) -> Iterator[Refusal]:
    """A file this call writes and then runs (``echo CMD > x.sh && sh x.sh``, a Makefile
    then ``make``, ``curl -o x.sh URL; bash x.sh``): judged by what it holds, as if the call
    ran that text; a download or a text the guard cannot see is refused."""
    written: dict[str, str | None] = {}  # file name -> its text (None: unknown)
    for command in unfolded.commands:
        name, args = command.name, command.args
        # First what it runs, of what earlier commands wrote (a command's own output, such
        # as ``pytest --basetemp=build/pytest``, exists only once it has started)
        positional = [a for a in args if not a.startswith("-")]
        run = [command.words[0]] if command.words else []
        if name in SHELLS | INTERPRETERS | {"source", "."} and positional:
            run.append(positional[0])
        if name in SHELLS | INTERPRETERS:  # ``sh < x.sh``, ``sh 0<fifo``
            run += [t for op, t in command.redirects if op.endswith("<")]
        run += _RUNS_FILES.get(name, ())
        run += [v for _, v in unfolded.code_paths]
        for word in run:
            base = word.rsplit("/", 1)[-1]
            if base not in written:
                continue
            text = written[base]
            if text is None:
                yield Refusal("pipe-to-shell", f"{' '.join(command.words)[:60]} runs {base}, "
                                               "which this call writes or downloads without "
                                               "the guard seeing it; write it, read it, and "
                                               "run it in a later call")
                return
            if base.endswith(".py"):
                text = shlex.join(["python3", "-c", text])
            elif base.endswith(".js"):
                text = shlex.join(["node", "-e", text])
            found = evaluate("Bash", {"command": re.sub(r"(?m)^\t", "", text)}, policy)
            if found is not None:
                yield Refusal(found.rule, f"{base}, which this call writes and runs: "
                                          f"{found.reason}")
                return
        targets = [t for op, t in command.redirects if op in (">", ">>", ">|", "&>")]
        targets += [a for a in args if name == "tee" and not a.startswith("-")]
        targets += write_targets(command) if name not in (
            "mv", "cp", "ln", "install", "chmod", "chown", "chgrp", "touch", "mkdir") else []
        text = _text_written(command) if name in (*_WRITERS_TEXT, "tee") else None
        for target in targets:
            written[target.rsplit("/", 1)[-1]] = text
        if name in DOWNLOADERS:
            for url in (a for a in args if a.startswith(("http://", "https://"))):
                if name == "wget" or {"-O", "--remote-name", "-fsSLO"} & set(args) or any(
                        re.fullmatch(r"-[a-zA-Z]*O[a-zA-Z]*", a) for a in args):
                    written[url.rstrip("/").rsplit("/", 1)[-1]] = None
        if name in ("mv", "cp", "ln", "install"):
            source = positional[0].rsplit("/", 1)[-1] if len(positional) > 1 else ""
            if source in written:  # a file of the project is no news; one made here is
                written[positional[-1].rsplit("/", 1)[-1]] = written[source]
        if name == "npm" and args[:2] == ["pkg", "set"]:
            written["package.json"] = " ".join(a.split("=", 1)[-1] for a in args[2:])


def _text_written(command: SimpleCommand) -> str | None:
    """What ``echo``/``printf``/``cat <<EOF``/``tee <<<`` writes, if the line says it."""
    if command.name in ("cat", "tee"):
        return command.stdin_text
    args = [a for a in command.args if not re.fullmatch(r"-[neE]+", a)]
    if command.name == "printf" and args:
        args = [args[0].replace("%s", " ".join(args[1:]))]
    escapes = {"n": "\n", "t": "\t", "\\": "\\"}
    return re.sub(r"\\([nt\\])", lambda m: escapes[m.group(1)], " ".join(args))


def _code_refusals(unfolded: Unfolded, cwd: Path | None,
                   policy: Policy) -> Iterator[Refusal]:
    """What interpreters' inline code would do to files, secrets and the network."""
    root = policy.root.resolve()
    git_dir = root / ".git"
    for command, effects in unfolded.code:
        name = command.name
        for kind, values in (("deletes", effects.deletes), ("changes", effects.writes)):
            for value in values:
                if value.startswith("/dev/"):
                    continue
                found = paths(value, cwd, policy)
                yield from starmap(Refusal, changed(((value, p) for p in found),
                                                    f"{name} inline code {kind}", policy))
                for path in found:  # the first path that breaks a rule says it
                    in_git = path is not None and (path == git_dir or git_dir in path.parents)
                    if not writable(path, policy, value, cwd) or in_git or (
                            kind == "deletes" and path == root):
                        yield Refusal("inline-code", f"{name} inline code {kind} {value}, "
                                                     f"outside the project {policy.root} (or "
                                                     "the project itself, or its .git)")
                        break
        if any(CACHE_WORD.search(text) for text in effects.strings):
            yield Refusal("tamper", f"{name} inline code names ralph-verify's cache (the "
                                    "cancel key, frozen files); it is the user's")
        for value in dict.fromkeys([*effects.reads, *effects.strings]):
            if any(is_secret(p, policy) for p in paths(value, cwd, policy)):
                yield Refusal("read-secrets", f"{name} inline code reads {value}, which looks "
                                              "like a secret")
        if effects.computed:
            yield Refusal("inline-code", f"{name} inline code changes files or runs commands "
                                         "at a path computed at run time (home, environment); "
                                         "the guard cannot tell where")
        if effects.obscure:
            yield Refusal("inline-code", f"{name} inline code builds code or names at run time "
                                         "(exec, eval, getattr); the guard cannot tell what it "
                                         "does: write it out")
        if effects.reverse:
            yield Refusal("reverse-shell", f"{name} inline code opens a socket and runs a "
                                           "shell or hands it its input and output")
        if effects.secret_vars:
            yield Refusal("env-dump", f"{name} inline code reads {effects.secret_vars[0]}, a "
                                      "secret of the environment; the transcript and any "
                                      "host it talks to must not see it")
        if effects.env_dump:
            yield Refusal("env-dump", f"{name} inline code prints the whole environment, "
                                      "which holds API keys and tokens; the transcript goes "
                                      "to the model's provider")
        yield from starmap(Refusal, network_findings(effects.strings, True, policy.allow_hosts,
                                                     policy.refuse_localhost))
