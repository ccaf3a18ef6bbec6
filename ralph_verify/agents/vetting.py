"""Is this CLI the one the adapter knows, and did it refuse to work? A refusal often exits
like any failure (or 0 with nothing done), so its message becomes an ``agent-error`` with
the fix instead of a loop that stalls."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")
#: The longest a refusal message is quoted.
_QUOTE = 300


@dataclass(frozen=True)
class Refusal:
    """A known refusal: a regular expression over the CLI's output, and the fix to show."""

    pattern: str
    fix: str
    #: Only in the error the CLI's JSON reported (not anywhere in the output, where a file
    #: the agent read or a command it ran could say the same words).
    error_only: bool = False

    def search(self, text: str) -> str | None:
        """The line of ``text`` that matches, stripped and cut, or None."""
        match = re.search(self.pattern, text, re.IGNORECASE | re.MULTILINE)
        if match is None:
            return None
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        line = text[start:end if end != -1 else len(text)].strip()
        if line.startswith(("{", "[")):  # a JSON line: its string that says it
            line = next((" ".join(said.split()) for said in _strings(line)
                         if re.search(self.pattern, said, re.IGNORECASE)), line)
        return line if len(line) <= _QUOTE else line[:_QUOTE] + "..."


@dataclass(frozen=True)
class Refused:
    """A write the CLI's own sandbox or permission mode refused: what it told the model, and
    the fix when no flag of the driver's lifts it (else the driver's own fix)."""

    said: str
    fix: str | None = None


def _strings(line: str) -> Iterator[str]:
    """The strings in the JSON ``line`` (none if it is not JSON), depth first."""
    try:
        stack = [json.loads(line)]
    except ValueError:
        return
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            yield value
        elif isinstance(value, (dict, list)):
            stack.extend(reversed(list(value.values() if isinstance(value, dict) else value)))


def find_refusal(name: str, refusals: Iterable[Refusal], output: str,
                 error: str | None = None) -> str | None:
    """The agent-error reason for the first known refusal in ``output`` (or ``error``)."""
    for refusal in refusals:
        for text in (error or "", "" if refusal.error_only else output):
            found = refusal.search(text) if text else None
            if found:
                return f"{name} refused to work: {found!r}; fix: {refusal.fix}"
    return None


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = _VERSION.search(text)
    return None if match is None else (int(match[1]), int(match[2]), int(match[3]))


def outside(version: tuple[int, int, int], tested: tuple[str, str]) -> bool:
    """Is ``version`` outside ``[lowest, below)``?"""
    return not (parse_version(tested[0]) or ()) <= version < (parse_version(tested[1]) or ())


def package_version(executable: str) -> tuple[int, int, int] | None:
    """The version in the executable's npm ``package.json``: ``--version`` loads the whole CLI
    (seconds for some)."""
    try:
        real = Path(os.path.realpath(executable))
    except OSError:
        return None
    for folder in list(real.parents)[:4]:
        manifest = folder / "package.json"
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("bin") and isinstance(data.get("version"), str):
            return parse_version(data["version"])
    return None


def distribution_version(executable: str) -> tuple[int, int, int] | None:
    """The version of the Python distribution whose console script ``executable`` is (aider:
    ``--version`` imports it all)."""
    from importlib.metadata import distributions

    script = Path(executable)
    for venv in list(script.resolve().parents)[:2]:
        sites = [str(site) for site in venv.glob("lib/python*/site-packages")]
        for dist in distributions(path=sites) if sites else ():
            if any(entry.name == script.name for entry in dist.entry_points):
                return parse_version(dist.version or "")
    return None


def probe_version(executable: str, timeout: float = 30.0) -> tuple[int, int, int] | None:
    """The CLI's version: its package's, else ``EXECUTABLE --version``'s; None if unread."""
    found = package_version(executable) or distribution_version(executable)
    if found is not None:
        return found
    try:
        with tempfile.TemporaryDirectory(prefix="ralph-version-") as where:
            proc = subprocess.run([executable, "--version"], capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL, errors="replace",
                                  cwd=where)
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_version(proc.stdout + "\n" + proc.stderr)


def version_warning(name: str, executable: str, tested: tuple[str, str]) -> str | None:
    """One line when the installed CLI is outside the versions the adapter was tested with."""
    version = probe_version(executable)
    if version is None or not outside(version, tested):
        return None
    found = ".".join(str(part) for part in version)
    return (f"{name} {found} is outside the versions ralph-verify's {name} adapter was tested "
            f"with ({tested[0]} up to below {tested[1]}); if a run fails on an unknown flag or "
            f"unread output, install a tested version or report it")


def json_lines(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The JSON objects among ``lines``, one a line, or in an array on one line; other lines
    (warnings on stderr, a truncated last line) are skipped."""
    for line in lines:
        line = line.strip()
        if not line.startswith(("{", "[")):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value
        elif isinstance(value, list):
            yield from (item for item in value if isinstance(item, dict))


def since(entry: dict[str, Any], start: float) -> bool:
    """Is this transcript entry stamped at ``start`` or later (or not readably stamped)?"""
    stamp = entry.get("timestamp")
    if not isinstance(stamp, str):
        return True
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() >= start
    except ValueError:
        return True


def refusal_reader(agent: str) -> Callable[..., Refused | None]:
    """``ralph_verify.agents.AGENT.AGENT_refusal``: reads what ``agent``'s own sandbox or
    permission mode refused from its JSON entries (since a start time, when given)."""
    read: Callable[..., Refused | None] = getattr(
        importlib.import_module(f"ralph_verify.agents.{agent}"), f"{agent}_refusal")
    return read


def read_refusal(agent: str, transcript: Path, start: float) -> Refused | None:
    """What ``agent``'s own sandbox or permission mode refused since ``start``, read from its
    transcript; None when nothing was."""
    try:
        with transcript.open(encoding="utf-8", errors="replace") as handle:
            return refusal_reader(agent)(json_lines(handle), start)
    except OSError:
        return None


def refusal_text(agent: str, found: Refused, fix: str) -> str:
    said = found.said if len(found.said) <= _QUOTE else found.said[:_QUOTE] + "..."
    return (f"{agent}'s own sandbox or permission mode refused a write: {said!r}; "
            f"fix: {found.fix or fix}")


def shell_fix(cli: str, program: str) -> str:
    """The fix for a shell command an approval mode refused that only ``--yolo`` allows."""
    return (f"{cli} runs no shell command headless without --yolo: 'ralph-verify run --yolo' "
            f"(best inside 'run --sandbox'), or start {program} with --yolo in hook mode")
