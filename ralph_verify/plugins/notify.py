"""``--notify URL`` / ``--notify-cmd CMD``: say how a session ended, to whoever is asleep.

A JSON summary (its ``text`` a Slack-style webhook message) is POSTed or piped; a failure is
logged to ``.ralph/notify.log`` and never changes how the session ends."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.display import duration
from ralph_verify.markers import hookimpl
from ralph_verify.redact import redact
from ralph_verify.state_files import now_iso
from ralph_verify.tasks.keys import CURRENT_TASK_KEY, LIST_NOTIFIER_KEY

if TYPE_CHECKING:
    from pathlib import Path

    from ralph_verify.loop.session import Session
    from ralph_verify.loop.verdict import VerdictProposal

#: Seconds one URL or command may take: a slow webhook must not hold the run's exit.
NOTIFY_TIMEOUT = 15.0
LOG_NAME = "notify.log"


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--notify", scope="loop", setting="notify", setting_type=list[str],
                     action="append", metavar="URL",
                     help="when the session ends, POST a JSON summary (verdict, reason, "
                          "iterations, cost, report; a Slack-compatible 'text') to URL "
                          "(repeatable; failures are logged, never fatal)")
    parser.addoption("--notify-cmd", scope="loop", setting="notify-cmd",
                     setting_type=list[str], action="append", metavar="COMMAND",
                     help="when the session ends, run COMMAND through the shell with the JSON "
                          "summary on stdin (repeatable; failures are logged, never fatal)")
    parser.addoption("--notify-each-task", scope="loop", action="store_true", default=None,
                     help="with --tasks: notify after every task too (by default only when "
                          "the list ends)")


def summary(session: Session, verdict: VerdictProposal) -> dict[str, Any]:
    """The JSON a notification carries (:func:`send` redacts it)."""
    costs = [it.agent.cost_usd for it in session.iterations
             if it.agent is not None and it.agent.cost_usd is not None]
    cost = round(sum(costs), 4) if costs else None
    from datetime import datetime  # a loop's end only: not at every start-up

    try:
        elapsed: float | None = time.time() - datetime.fromisoformat(
            session.started_at).timestamp()
    except ValueError:
        elapsed = None
    iterations = session.last.number if session.last is not None else 0
    report = session.dir / "report.html"
    project = session.root.name
    text = (f"ralph-verify: {project}: {verdict.verdict.value} after {iterations} "
            f"iteration{'s' if iterations != 1 else ''} — {verdict.reason}")
    extras = [duration(elapsed)] if elapsed is not None else []
    extras += [f"${cost:.2f}"] if cost is not None else []
    if extras:
        text += f" ({', '.join(extras)})"
    return {
        "event": "session-finished",
        "project": str(session.root),
        "session": session.id,
        "verdict": verdict.verdict.value,
        "reason": verdict.reason,
        "iterations": iterations,
        "max_iterations": session.max_iterations,
        "cost_usd": cost,
        "duration_s": round(elapsed, 1) if elapsed is not None else None,
        "report": str(report) if report.exists() else None,
        "finished_at": now_iso(),
        "text": text,
    }


def _post(url: str, body: bytes) -> None:
    import urllib.request  # about 20 ms: only when there is something to send

    if not url.startswith(("http://", "https://")):
        raise ValueError("not an http(s) URL")
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/json",
                                              "User-Agent": "ralph-verify"})
    with urllib.request.urlopen(request, timeout=NOTIFY_TIMEOUT) as response:
        response.read(4096)


def _run(command: str, body: bytes, cwd: str) -> None:
    done = subprocess.run(command, shell=True, input=body, cwd=cwd, capture_output=True,
                          timeout=NOTIFY_TIMEOUT, check=False)
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise RuntimeError(f"exit {done.returncode} {tail[0]}".strip())


def _log(folder: Path, line: str) -> None:
    print(f"ralph-verify: {line}", file=sys.stderr)
    try:
        with (folder / LOG_NAME).open("a", encoding="utf-8") as log:
            log.write(f"{now_iso()} {line}\n")
    except OSError:
        pass


@hookimpl
def ralph_configure(config: Config) -> None:
    config.stash[LIST_NOTIFIER_KEY] = send


@hookimpl(trylast=True)
def ralph_session_finish(session: Session, verdict: VerdictProposal) -> None:
    config = session.config
    task = config.stash.get(CURRENT_TASK_KEY)
    if task is not None and not config.get("notify_each_task"):
        return  # one task of a list: the list notifies when it ends
    data = summary(session, verdict)
    if task is not None:
        data.update(event="task-finished", task=task)
    send(config, data, session.dir)


def send(config: Config, data: dict[str, Any], folder: Path | None = None) -> None:
    """POST ``data`` to every ``--notify`` URL and pipe it to every ``--notify-cmd``."""
    urls = [u for u in config.get("notify") or [] if u]
    commands = [c for c in config.get("notify_cmd") or [] if c]
    if not urls and not commands:
        return
    folder = folder or config.root / ".ralph"
    data = {key: redact(value) if isinstance(value, str) else value
            for key, value in data.items()}
    body = json.dumps(data, ensure_ascii=False).encode("utf-8")
    for url in urls:
        try:
            _post(url, body)
        except (OSError, ValueError) as exc:  # urllib's URLError is an OSError
            _log(folder, f"could not notify {redact(url)}: {exc}")
    for command in commands:
        try:
            _run(command, body, str(config.root))
        except (OSError, RuntimeError, subprocess.TimeoutExpired) as exc:
            _log(folder, f"notify command {command!r} failed: {exc}")
