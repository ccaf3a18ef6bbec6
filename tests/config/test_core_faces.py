"""The core's faces to plugins: typed stash keys, one accessor for options, one ExitCode."""

from __future__ import annotations

import ast
import json
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

import ralph_verify
from ralph_verify.config.parser import Parser
from ralph_verify.config.stash import Stash, StashKey
from ralph_verify.exitcode import CHECK_MEANINGS, ExitCode
from ralph_verify.loop.verdict import EXIT_CODES, Verdict, VerdictProposal
from ralph_verify.testing import Ralph

PACKAGE = Path(ralph_verify.__file__).parent


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _is_stash(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "stash"


def test_no_string_literal_is_used_as_a_stash_key() -> None:
    """Keys are StashKey objects declared once (ralph_verify.config.stash), so mypy checks the
    type of every value and no two plugins spell a key differently."""
    found = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            key: ast.expr | None = None
            if isinstance(node, ast.Subscript) and _is_stash(node.value):
                key = node.slice
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and _is_stash(node.func.value) and node.args):
                key = node.args[0]
            if isinstance(key, ast.Constant):
                found.append(f"{path.relative_to(PACKAGE)}:{key.lineno}: {key.value!r}")
    assert found == []


def test_a_stash_key_is_an_object_not_its_name() -> None:
    stash = Stash()
    first: StashKey[int] = StashKey("count")
    second: StashKey[int] = StashKey("count")
    stash[first] = 1
    assert stash[first] == 1
    assert second not in stash and stash.get(second) is None
    assert stash.get(second, 0) == 0
    assert stash.setdefault(second, 5) == 5 and len(stash) == 2


@pytest.mark.parametrize("script", ["watchdog.py", "reaper.py"])
def test_the_watchdog_imports_nothing_of_ralph_verify(script: str) -> None:
    """The watchdog runs as 'python -I -S' (it must outlive a kill -9 of ralph-verify, in any
    environment): an import of ralph_verify there crashes it at start and leaves the agent
    running. So it spells its one exit code as a number: ExitCode's value, checked here.
    The agent's reaper runs so too (its 127: the shell's "command not found")."""
    tree = ast.parse((PACKAGE / "proc" / script).read_text(encoding="utf-8"))
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names]
    assert [m for m in imported if m and m.split(".")[0] == "ralph_verify"] == []
    returns = {node.value.value for node in ast.walk(tree)
               if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant)
               and type(node.value.value) is int}
    assert returns <= {0, 1, int(ExitCode.USAGE_ERROR), 127}, returns


def test_no_exit_code_is_a_bare_number() -> None:
    """Every exit code beyond 0/1 comes from ExitCode: exit code 3 was once defined in
    three modules, each free to drift."""
    numbers = {int(code) for code in ExitCode} - {0, 1}
    found = []
    for path, tree in _modules():
        if path.name in ("exitcode.py", "watchdog.py", "reaper.py"):  # the test above
            continue
        for node in ast.walk(tree):
            value = None
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
                value = node.value.value
            elif (isinstance(node, ast.Call) and node.args
                  and isinstance(node.args[0], ast.Constant)
                  and getattr(node.func, "attr", getattr(node.func, "id", "")) in
                  ("exit", "_exit")):
                value = node.args[0].value
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and any(
                    isinstance(t, ast.Name) and "EXIT" in t.id for t in node.targets):
                value = node.value.value
            if type(value) is int and value in numbers:
                found.append(f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}: {value}")
    assert found == []


def test_every_verdict_exits_with_its_own_documented_code() -> None:
    assert set(EXIT_CODES) == set(Verdict)
    assert all(isinstance(code, ExitCode) for code in EXIT_CODES.values())
    codes = [EXIT_CODES[v] for v in Verdict if v is not Verdict.CANCELLED]
    assert len(set(codes)) == len(codes)
    assert EXIT_CODES[Verdict.CANCELLED] is ExitCode.INTERRUPTED


@pytest.mark.parametrize("command", ["check", "run"])
def test_help_lists_every_exit_code_of_the_command(ralph: Ralph, command: str) -> None:
    result = ralph.run(command, "--help")
    assert result.ret == ExitCode.OK
    codes = set(CHECK_MEANINGS) if command == "check" else set(ExitCode) - {ExitCode.OK,
                                                                              ExitCode.CHECKS_FAILED}
    for code in codes:
        assert f"\n  {int(code):<2} " in result.out or f"\n  {int(code):<3} " in result.out, \
            f"{command} --help does not document exit code {int(code)}"


def _declared() -> Parser:
    """Every option and setting the built-in plugins declare, as ``get_config`` collects them."""
    from ralph_verify.startup import collect_options, get_plugin_manager

    return collect_options(get_plugin_manager())


def _is_config(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return isinstance(name, str) and name == "config"


def test_options_are_read_and_never_written_outside_the_config() -> None:
    """``config.get`` is the one way to read an option (it knows the declared default and
    the config file); nothing writes the parsed command line (a session's values are a copy
    of the configuration: ``Config.with_values``)."""
    from ralph_verify.recorder.sources import MODULES

    # Our modules that run inside the project's pytest: their ``config`` is pytest's.
    in_pytest = {PACKAGE / "recorder" / f"{module}.py" for module in MODULES.values()}
    found = []
    for path, tree in _modules():
        if path.parent.name == "config" or path in in_pytest:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "option" and _is_config(
                    node.value):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


def test_no_reader_repeats_a_declared_default() -> None:
    """``config.get(x) or DEFAULT`` declares the default a second time and turns a falsy
    value the user chose (0: no limit) into it."""
    defaults = {setting.dest: setting.default for setting in _declared().settings.values()}
    for option in _declared().options:
        dest = option.kwargs.get("dest") or option.flags[-1].lstrip("-").replace("-", "_")
        defaults.setdefault(dest, option.kwargs.get("default"))
    found = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)):
                continue
            first = node.values[0]
            if (isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute)
                    and first.func.attr == "get" and _is_config(first.func.value)
                    and first.args and isinstance(first.args[0], ast.Constant)):
                dest = str(first.args[0].value).replace("-", "_")
                if defaults.get(dest) is not None:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {dest} "
                                 f"(declared default {defaults[dest]!r})")
    assert found == []


def test_every_option_is_declared_once() -> None:
    """One declaration per option, whichever commands share it (``scope=(...)``): two
    declarations of ``--max-iterations`` had two defaults and two validations."""
    seen: dict[str, str] = {}
    twice = []
    for option in _declared().options:
        dest = option.kwargs.get("dest") or option.flags[-1].lstrip("-").replace("-", "_")
        negated = option.flags[-1].startswith("--no-")  # --sandbox / --no-sandbox: one option
        if dest in seen and not (negated and seen[dest] == option.plugin):
            twice.append(f"{dest}: {seen[dest]} and {option.plugin}")
        seen[dest] = option.plugin
    assert twice == []


@pytest.mark.parametrize("where", ["command line", "pyproject"])
def test_max_calls_per_hour_0_switches_the_rate_limit_off(ralph: Ralph, where: str) -> None:
    """0 means "no limit", as for --max-time and --max-cost; a reader falling back to the
    default (``or 100``) or a validator refusing 0 made the off-switch unreachable."""
    if where == "pyproject":
        ralph.makepyproject("[tool.ralph-verify]\nmax-calls-per-hour = 0\n")
    ralph.git_init()
    limit = ["--max-calls-per-hour", "0"] if where == "command line" else []
    result = ralph.run("run", "--agent", "cmd:true", "--until", "files:done.txt",
                       "--max-iterations", "2", *limit, "-p", "no:breaker", "make done.txt")
    assert result.ret == ExitCode.MAX_ITERATIONS, result
    assert "rate limit" not in result.out + result.err


@pytest.mark.parametrize(("plugin", "why"), [
    ("core", "it runs every check"),
    ("commands.check", "it provides the check command"),
])
def test_an_essential_plugin_cannot_be_disabled(ralph: Ralph, plugin: str, why: str) -> None:
    """-p no:core made every check error (an internal error, even); -p no:commands.check took
    'check' away: refused up front, naming the plugin and why."""
    result = ralph.run("check", "--until", "files:pyproject.toml", "-p", f"no:{plugin}")
    assert result.ret == ExitCode.USAGE_ERROR
    assert result.out == ""
    assert result.err.startswith(f"ERROR: -p no:{plugin}: plugin {plugin!r} cannot be "
                                 "disabled: ") and why in result.err
    assert result.err.count("\n") == 1


def test_hooks_are_only_called_through_pluggy() -> None:
    """Calling ``impl.function`` directly hides the call from wrappers and tracing."""
    found = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "function"):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


class Watcher:
    """A third-party plugin: wraps the policies and options hooks and proposes a verdict."""

    def __init__(self) -> None:
        self.verdict_calls: list[list[str]] = []
        self.declared = 0

    @ralph_verify.hookimpl(wrapper=True)
    def ralph_addoption(self, parser: Parser) -> Iterator[None]:
        before = len(parser.options)
        yield
        self.declared = len(parser.options) - before

    @ralph_verify.hookimpl(wrapper=True)
    def ralph_iteration_verdict(self) -> Generator[None, list[VerdictProposal],
                                                    list[VerdictProposal]]:
        proposals = yield
        self.verdict_calls.append([p.source or p.verdict.value for p in proposals])
        return proposals


class Blocker:
    @ralph_verify.hookimpl
    def ralph_iteration_verdict(self) -> VerdictProposal:
        return VerdictProposal(Verdict.BLOCKED, "the blocker says so")


def test_wrappers_see_the_policies_and_each_proposal_names_its_plugin(ralph: Ralph) -> None:
    ralph.git_init()
    watcher = Watcher()
    result = ralph.run("run", "--agent", "cmd:true", "--until", "files:done.txt",
                       "--max-iterations", "3", "make done.txt", plugins=[watcher, Blocker()])
    assert result.ret == ExitCode.BLOCKED, result
    assert watcher.declared > 10  # every plugin's options went through the wrapper
    assert len(watcher.verdict_calls) == 1 and watcher.verdict_calls[0]  # one iteration
    state = json.loads((ralph.path / ".ralph" / "state.json").read_text(encoding="utf-8"))
    assert state["verdict"] == {"verdict": "blocked", "source": "Blocker",
                                "reason": "the blocker says so"}


def test_status_json_is_the_one_json_option_and_honours_its_file(ralph: Ralph) -> None:
    """``--json`` is declared once for check, run and status; status used to declare its
    own, which printed to stdout whatever FILE it was given."""
    ralph.git_init()
    ralph.run("run", "--agent", "cmd:true", "--until", "files:done.txt", "--max-iterations",
              "1", "x")
    result = ralph.run("status", "--json", "state-copy.json")
    assert result.ret == ExitCode.OK and result.out == ""
    data = json.loads((ralph.path / "state-copy.json").read_text(encoding="utf-8"))
    assert data["verdict"]["verdict"] == "max-iterations"
    assert ralph.run("status", "--json").json() == data
