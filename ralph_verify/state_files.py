"""Writing files so that a crash or Ctrl-C never leaves half of one behind."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any

from ralph_verify.errors import UsageError


def now_iso() -> str:
    """Now, in UTC, to the second: the timestamp of every record ralph-verify writes
    (``datetime.now(timezone.utc).isoformat(timespec="seconds")``, without importing
    ``datetime`` at every start). The second is ``time.time()``'s: a bare ``gmtime()`` reads
    the C library's coarse ``time(NULL)``, a tick behind at each second's turn."""
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time_ns() // 1_000_000_000))


def utc_now_iso(now_ns: int | None = None) -> str:
    """``datetime.now(timezone.utc).isoformat()`` (to the microsecond, which it leaves out
    when it is 0), the same text, without ``datetime``."""
    seconds, nanos = divmod(time.time_ns() if now_ns is None else now_ns, 1_000_000_000)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    micros = nanos // 1000
    return f"{text}.{micros:06d}+00:00" if micros else f"{text}+00:00"


def output_target(option: str, value: str, base: Path) -> Path:
    """The file ``--json FILE`` / ``--junitxml FILE`` names, checked before anything runs:
    a directory, or a folder that cannot be written, is a usage error, not a traceback at
    the end."""
    path = Path(base, value).expanduser()
    if path.is_dir():
        raise UsageError(f"{option} {value}: is a directory; give a file name, e.g. "
                         f"{Path(value, 'result' + ('.xml' if 'junit' in option else '.json'))}")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {value}: {folder} is not a folder")
    import tempfile  # here, not at start-up (it pulls in shutil, random, bz2, lzma)

    try:  # the only sure test: make a file there (and remove it)
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{option} {value}: cannot write in {folder} ({exc.strerror}); "
                         "choose another path") from None
    return path


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --- Reading: one validated loader for every file under .ralph/ -----------------------------

#: What a field holds when present (absent fields are left to each reader's default).
_Shape = dict[str, tuple[type, ...]]
_NUMBER = (int, float)
_TEXT = (str,)
_CHECK: _Shape = {"name": _TEXT, "spec": _TEXT, "status": _TEXT, "summary": _TEXT,
                  "metric": (*_NUMBER, type(None)), "counts": (dict,), "failures": (int, list),
                  "pre_existing": (int,), "fingerprints": (list,), "duration_s": _NUMBER,
                  "output": _TEXT, "flaky": (list,), "unkept": (int, type(None)),
                  "cached": (bool,)}
_STATE: _Shape = {"version": (int,), "session": _TEXT, "status": _TEXT, "phase": _TEXT,
                  "root": _TEXT, "started_at": _TEXT, "updated_at": _TEXT,
                  "elapsed_s": _NUMBER, "iteration": (int,), "max_iterations": (int,),
                  "agent": (str, type(None)), "until": (list,), "task": (str, type(None)),
                  "settings": (dict,), "passed": (bool, type(None)), "checks": (list,),
                  "verdict": (dict, type(None)), "plugin_state": (dict,), "mode": _TEXT,
                  "pid": (int, type(None)), "error": (str, type(None))}
_VERDICT: _Shape = {"verdict": _TEXT, "reason": _TEXT, "source": (str, type(None))}
_HISTORY: _Shape = {"iteration": (int,), "started_at": _TEXT, "duration_s": _NUMBER,
                    "prompt": (str, type(None)), "agent": (dict, type(None)),
                    "files_changed": (list,), "promises": (list,),
                    "passed": (bool, type(None)), "checks": (list,)}
_AGENT: _Shape = {"exit_code": (int, type(None)), "duration_s": (*_NUMBER, type(None)),
                  "cost_usd": (*_NUMBER, type(None)), "input_tokens": (int, type(None)),
                  "output_tokens": (int, type(None)), "turns": (int, type(None)),
                  "retries": (int,), "waited_s": _NUMBER, "idle_s": (*_NUMBER, type(None))}
_VERIFICATION: _Shape = {"passed": (bool,), "root": _TEXT, "started_at": _TEXT,
                         "duration_s": _NUMBER, "checks": (list,), "feedback": _TEXT}
_FAILURE: _Shape = {"message": _TEXT, "location": (str, type(None)), "detail": _TEXT,
                    "code": (str, type(None)), "path": (str, type(None)),
                    "line": (int, type(None)), "fingerprint": _TEXT, "pre_existing": (bool,)}


class CorruptFile(UsageError):
    """A file under ``.ralph/`` that is not what ralph-verify wrote: one line naming it, what
    is wrong and how to start afresh (exit 2), never a traceback further on."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        super().__init__(f"{path} is corrupted ({problem}); move it aside, or remove "
                         f"{_ralph_dir(path)} to start afresh (git keeps the session's commits)")


def _ralph_dir(path: Path) -> Path:
    for parent in path.parents:
        if parent.name == ".ralph":
            return parent
    return path.parent


def _kind(value: object) -> str:
    return "null" if value is None else {dict: "an object", list: "a list", str: "text",
                                         bool: "true/false"}.get(type(value), "a number")


def _check_fields(data: dict[str, object], shape: _Shape, where: str) -> str | None:
    for key, types in shape.items():
        if key not in data:
            continue
        value = data[key]
        wrong = not isinstance(value, types) or (isinstance(value, bool) and bool not in types)
        if not wrong and isinstance(value, float) and math.isnan(value):
            wrong = True
        if wrong:
            return f"{where}{key} is {_kind(value)}"
    return None


def _check_items(data: dict[str, object], key: str, shape: _Shape, where: str) -> str | None:
    items = data.get(key)
    for index, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict):
            return f"{where}{key}[{index}] is {_kind(item)}"
        problem = _check_fields(item, shape, f"{where}{key}[{index}].")
        if problem is None and shape is _CHECK:
            problem = _check_items(item, "failures", _FAILURE, f"{where}{key}[{index}].")
        if problem:
            return problem
    return None


def _shape_problem(data: object, shape: _Shape) -> str | None:
    if not isinstance(data, dict):
        return f"it holds {_kind(data)}, not an object"
    problem = _check_fields(data, shape, "") or _check_items(data, "checks", _CHECK, "")
    if problem is None and isinstance(data.get("verdict"), dict):
        problem = _check_fields(data["verdict"], _VERDICT, "verdict.")
    if problem is None and isinstance(data.get("agent"), dict):
        problem = _check_fields(data["agent"], _AGENT, "agent.")
    if problem is None and isinstance(data.get("until"), list) \
            and not all(isinstance(item, str) for item in data["until"]):
        problem = "until holds what is not text"
    return problem


def _load(path: Path) -> object:
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise CorruptFile(path, "a folder where a file belongs") from None
    except OSError as exc:
        raise CorruptFile(path, f"cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CorruptFile(path, "not UTF-8 text") from None
    except RecursionError:
        raise CorruptFile(path, "JSON nested too deeply") from None
    except ValueError as exc:
        raise CorruptFile(path, f"not JSON: {str(exc).split(';')[0]}") from None


def load_state(path: Path) -> dict[str, Any] | None:
    """``state.json`` checked field by field; ``None`` when there is none."""
    try:
        data = _load(path)
    except FileNotFoundError:
        return None
    problem = _shape_problem(data, _STATE)
    if problem:
        raise CorruptFile(path, problem)
    assert isinstance(data, dict)
    return data


def load_verification(path: Path) -> dict[str, Any] | None:
    """An iteration's ``verification.json`` checked field by field; ``None`` when absent."""
    try:
        data = _load(path)
    except FileNotFoundError:
        return None
    problem = _shape_problem(data, _VERIFICATION)
    if problem is None and isinstance(data, dict):
        problem = next((f"checks[{i}] has no {key}" for i, check in enumerate(data.get(
            "checks") or []) for key in ("name", "spec", "status") if key not in check), None)
    if problem:
        raise CorruptFile(path, problem)
    assert isinstance(data, dict)
    return data


def history_record(path: Path, lineno: int, record: object) -> dict[str, Any]:
    """One line of ``history.jsonl``, checked; :class:`CorruptFile` naming the line if wrong."""
    problem = _shape_problem(record, _HISTORY)
    if problem:
        raise CorruptFile(path, f"line {lineno}: {problem}")
    assert isinstance(record, dict)
    return record
