"""The agent under bubblewrap: ``sandbox = "auto"`` (the default), ``--sandbox``, ``--no-sandbox``.

``auto`` says why when bubblewrap cannot work here; ``on`` stops before the baseline then. A
failure of the sandbox itself ends the run as ``agent-error`` (docs/safety.md)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Generator, Iterator, Mapping
from pathlib import Path
from typing import Any

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.config.stash import StashKey
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl

NAME = "sandbox"
MODES = ("auto", "on", "off")
NETWORKS = ("shared", "none", "loopback", "hosts")
#: The bubblewrap program the agent runs under, found at configure (absent: no sandbox).
BWRAP_KEY: StashKey[str] = StashKey("sandbox_bwrap")
#: Why ``auto`` found no sandbox, said when the session starts: after any usage error.
WHY_NOT_KEY: StashKey[str] = StashKey("sandbox_why_not")
#: The note of the first network refusal was said.
SAID_KEY: StashKey[bool] = StashKey("sandbox_refusal_said")


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--sandbox", scope="loop", action="store_const", const="on",
                     setting="sandbox", setting_type=str, default="auto",
                     help="run the agent under bubblewrap (Linux) and stop when it cannot: it "
                          "writes only the project, sees no credentials of yours, and cannot "
                          "destroy .git's objects or touch .ralph/ (docs/safety.md)",
                     setting_help="'auto' (default: the sandbox where bubblewrap works here, "
                                  "else a note why not), 'on' (required), 'off'")
    parser.addoption("--no-sandbox", scope="loop", action="store_const", const="off",
                     dest="sandbox", default=None,
                     help="run the agent without the sandbox (the default 'auto' uses it "
                          "where bubblewrap works)")
    parser.addoption("--sandbox-network", scope="loop", setting="sandbox-network",
                     choices=NETWORKS, default="shared",
                     help="with the sandbox: 'shared' (default), 'none'/'loopback' (a "
                          "loopback of its own, nothing else) or 'hosts' (that loopback and a "
                          "proxy to the agent CLI's API hosts and sandbox-hosts)")
    parser.addoption("--sandbox-host", scope="loop", setting="sandbox-hosts",
                     setting_type=list[str], action="append", metavar="NAME",
                     help="with --sandbox-network hosts: let the agent reach this host "
                          "('api.example.com', '*.example.com', ':PORT'; ports 443 and 80 "
                          "otherwise); repeatable; the agent CLI's own API hosts are always "
                          "allowed")
    parser.addoption("--sandbox-env", scope="loop", setting="sandbox-env",
                     setting_type=list[str], action="append", metavar="NAME",
                     help="with the sandbox: keep this secret variable for the agent "
                          "(repeatable); the agent CLI's own API key is always kept")


def sandbox_mode(config: Config) -> str:
    """``auto``, ``on`` or ``off``; ``true``/``false`` in the file read as on/off. Neither
    on the command line nor in the file, ``$RALPH_VERIFY_SANDBOX`` decides (a test suite's
    or a CI job's default), then ``auto``."""
    value = config.get("sandbox")
    chosen = config.source_of("sandbox") != "default"
    if not chosen and os.environ.get("RALPH_VERIFY_SANDBOX"):
        value = os.environ["RALPH_VERIFY_SANDBOX"]
    if isinstance(value, bool):
        return "on" if value else "off"
    mode = str(value or "auto").lower()
    mode = {"true": "on", "false": "off"}.get(mode, mode)
    if mode not in MODES:
        raise UsageError(f"sandbox = {value!r}: use one of {', '.join(MODES)} "
                         "([tool.ralph-verify] sandbox, $RALPH_VERIFY_SANDBOX)")
    return mode


@hookimpl
def ralph_configure(config: Config) -> None:
    """``on`` and no usable bubblewrap fails before the baseline (exit 2); ``auto`` says why."""
    if "loop" not in config.command.scopes:
        return
    if config.get("sandbox_network") not in NETWORKS:
        raise UsageError(f"sandbox-network = {config.get('sandbox_network')!r}: use one of "
                         f"{', '.join(NETWORKS)}")
    if config.get("sandbox_network") == "hosts":
        _allowed(config, os.environ)  # a bad or empty list stops before the baseline
    mode = sandbox_mode(config)
    if mode == "off":
        return
    from ralph_verify.guard.sandbox import check_available, probe

    if mode == "on":
        config.stash[BWRAP_KEY] = check_available()
        return
    bwrap, why_not = probe()
    if bwrap is not None:
        config.stash[BWRAP_KEY] = bwrap
    else:
        config.stash[WHY_NOT_KEY] = why_not


@hookimpl
def ralph_session_start(session: Any) -> None:
    """The note of ``auto`` without a sandbox, once the session is sure to run the agent: a
    usage error (a bad spec, a missing prompt file) comes alone, never after a note."""
    why_not = session.config.stash.get(WHY_NOT_KEY)
    if why_not is not None:
        sys.stderr.write(f"note: {_unsandboxed(why_not)}\n")


@hookimpl
def ralph_session_finish(session: Any) -> None:
    """Said again at the end, where the run's report is read."""
    why_not = session.config.stash.get(WHY_NOT_KEY)
    if why_not is not None:
        session.config.hook.ralph_report_line(config=session.config,
                                              line=f"note: {_unsandboxed(why_not)}")


def _unsandboxed(why_not: str) -> str:
    return (f"the agent runs without a sandbox: {why_not} (--no-sandbox or sandbox = "
            "\"off\" silences this note)")


@hookimpl(wrapper=True)
def ralph_run_agent(session: Any, request: Any) -> Generator[None, Any, Any]:
    config = session.config
    bwrap = config.stash.get(BWRAP_KEY)
    if bwrap is None:
        return (yield)
    from ralph_verify.guard import sandbox
    from ralph_verify.guard.gitstore import adopt
    from ralph_verify.project.caches import user_cache_dir
    from ralph_verify.records.refusals import GUARD_LOG

    spec = str(config.get("agent") or "")
    root, agent = Path(request.root), spec.split(":", 1)[0]
    own = Path(request.session_dir) / "agent"  # adapters keep their CLI's state there
    own.mkdir(parents=True, exist_ok=True)
    refusals = Path(request.session_dir) / GUARD_LOG  # the guard's hook runs inside
    refusals.touch()
    environ, refused = {**os.environ, **request.env}, list[str]()
    with tempfile.TemporaryFile() as status, _proxy(config, environ, refused) as proxy:
        argv = sandbox.agent_argv(
            bwrap, root, agent, network=str(config.get("sandbox_network")),
            keep=config.get("sandbox_env") or (), environ=environ,
            hidden=[user_cache_dir()], writable=[own, refusals], status_fd=status.fileno(),
            shown=sandbox.named_paths(spec), proxy=proxy)
        request.sandbox, request.sandbox_fds = tuple(argv), (status.fileno(),)
        try:
            result = yield
        finally:
            problems = [p for d in sandbox.git_dirs(root) for p in adopt(d / "objects")]
            status.seek(0)
            started = b'"exit-code"' in status.read()
    _say_refused(config, root, agent, refused)
    if problems:
        config.hook.ralph_report_line(config=config, line="ralph-verify: objects the agent "
                                      "wrote were left out: " + "; ".join(problems[:5]))
    if result.error is None and not (result.timed_out or result.cancelled or result.idle_s) \
            and result.exit_code is not None and (not started or result.exit_code == 127) \
            and (error := _wrapper_error(argv, request.log_path, started)):
        result.error = error
    elif result.error and "not found" in result.error:
        result.error += "".join(_hidden_note(argv, word.strip("'\"():,"))
                                for word in result.error.split() if "/" in word)[:1000]
    return result


def _allowed(config: Config, environ: Mapping[str, str]) -> list[Any]:
    """The rules of ``hosts``: the agent CLI's API hosts and ``sandbox-hosts``."""
    from ralph_verify.guard.netproxy import parse_hosts
    from ralph_verify.guard.sandbox import agent_hosts

    agent = str(config.get("agent") or "")
    listed = [*agent_hosts(agent, environ), *(config.get("sandbox_hosts") or ())]
    if not listed:
        raise UsageError(f"--sandbox-network hosts: the agent {agent!r} has no API host known "
                         "to ralph-verify; list the hosts it may reach with --sandbox-host NAME "
                         "or sandbox-hosts = [...] in [tool.ralph-verify]")
    return parse_hosts(listed)


@contextlib.contextmanager
def _proxy(config: Config, environ: Mapping[str, str],
           refused: list[str]) -> Iterator[str | None]:
    """With ``hosts``, the filtering proxy's socket while the agent runs; refusals are
    added to ``refused`` (``host:port``)."""
    if config.get("sandbox_network") != "hosts":
        yield None
        return
    from ralph_verify.guard.netproxy import Proxy

    # A unix socket's path has at most 107 bytes: not under a long $TMPDIR.
    folder = tempfile.mkdtemp(prefix="rv-proxy-", dir="/tmp" if os.path.isdir("/tmp") else None)
    try:
        with Proxy(os.path.join(folder, "proxy.sock"), _allowed(config, environ),
                   lambda host, port: refused.append(f"{host}:{port}")):
            yield os.path.join(folder, "proxy.sock")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _say_refused(config: Config, root: Path, agent: str, refused: list[str]) -> None:
    """Each refusal into ``.ralph/guard.jsonl`` (``status``, the report count them), and
    one note to the user, the first time in the run."""
    from ralph_verify.records.refusals import RefusalRecord, record_refusal

    for target in refused:
        record_refusal(root, RefusalRecord(
            rule="sandbox-network", reason=f"{target} is not a listed host", agent=agent,
            tool="network", input={"host": target}))
    if refused and not config.stash.get(SAID_KEY, False):
        config.stash[SAID_KEY] = True
        hosts = ", ".join(dict.fromkeys(refused))
        config.hook.ralph_report_line(config=config, line=(
            f"note: the sandbox refused the agent's connections to {hosts} (not a listed "
            "host; --sandbox-host NAME or sandbox-hosts allows one); each refusal is in "
            ".ralph/guard.jsonl"))


def _wrapper_error(argv: list[str], log_path: Path, started: bool) -> str:
    """The agent never started: bubblewrap's own message (or, once bubblewrap ``started``
    the bridge of ``hosts``, the bridge's), and what to do; '' when the output does not end in
    it (an agent object that starts no process under the sandbox never makes it report a
    start)."""
    from ralph_verify.guard.bridge import BRIDGE_EXEC
    from ralph_verify.guard.sandbox import NAMESPACE_HINT, last_line

    try:
        message = last_line(log_path.read_text(encoding="utf-8", errors="replace")[-4000:])
    except OSError:
        return ""
    bridged = message.startswith(BRIDGE_EXEC)
    if (started and not bridged) or not (bridged or message.startswith("bwrap: ")):
        return ""
    if bridged or message.startswith("bwrap: execvp "):
        program = message.split("execvp ", 1)[1].rsplit(":", 1)[0]
        return f"the agent program {program} cannot run in the sandbox ({message})" + \
            (_hidden_note(argv, program) or "; check that it exists and is executable")
    return (f"the sandbox failed before the agent started: {message!r}; {NAMESPACE_HINT}, "
            "repair bubblewrap (bwrap), or run with --no-sandbox")


def _hidden_note(argv: list[str], path: str) -> str:
    from ralph_verify.guard.sandbox import hidden_by

    where = hidden_by(argv, path) if path.startswith("/") and os.path.lexists(path) else None
    return "" if where is None else (
        f"; {path} lies outside what the sandbox shows: {where} is private and empty in the "
        "sandbox; put the program elsewhere (not under /tmp) or run with --no-sandbox")
