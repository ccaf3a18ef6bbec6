"""The one way a file under ``.ralph/`` becomes a typed record, and a record a file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TypeVar

from ralph_verify.errors import UsageError
from ralph_verify.records.codec import ShapeError, decode, encode
from ralph_verify.redact import redact, redact_data
from ralph_verify.state_files import write_text_atomic

T = TypeVar("T")


class CorruptFile(UsageError):
    """A file under ``.ralph/`` that is not what ralph-verify wrote: one line naming it, what
    is wrong and how to start afresh (exit 2), never a traceback further on."""

    def __init__(self, path: Path, problem: str, mode: str | None = None) -> None:
        self.path = path
        #: The ``mode`` a JSON object of the wrong shape names (``state.json``: whose session
        #: it is; ``""`` when it names none), ``None`` when the file holds no JSON object.
        self.mode = mode
        super().__init__(f"{path} is corrupted ({problem}); move it aside, or remove "
                         f"{_ralph_dir(path)} to start afresh (git keeps the session's commits)")


def _ralph_dir(path: Path) -> Path:
    return next((parent for parent in path.parents if parent.name == ".ralph"), path.parent)


def read_json(path: Path) -> object:
    """The JSON in ``path``; :class:`FileNotFoundError` when there is none, else
    :class:`CorruptFile` for anything that is not JSON text."""
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


def load(cls: type[T], path: Path, **given: Any) -> T | None:
    """The record of type ``cls`` in ``path``, checked field by field; ``None`` if absent."""
    try:
        data = read_json(path)
    except FileNotFoundError:
        return None
    return parse(cls, path, data, **given)


def parse(cls: type[T], path: Path, data: object, **given: Any) -> T:
    """``data``, read from ``path``, as a ``cls``; :class:`CorruptFile` naming what is wrong."""
    try:
        return decode(cls, data, **given)
    except ShapeError as exc:
        mode = data.get("mode", "") if isinstance(data, dict) else None
        raise CorruptFile(path, str(exc), mode if mode is None else str(mode)) from None


def read_lines(cls: type[T], path: Path) -> list[T]:
    """The records of a JSON-lines file; a line cut by a crash is skipped, a missing or
    unreadable file holds none, a line of the wrong shape is a :class:`CorruptFile`."""
    records: list[T] = []
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for lineno, line in enumerate(handle, 1):
                try:
                    data = json.loads(line)
                except (ValueError, RecursionError):
                    continue  # a line cut by a crash
                try:
                    records.append(decode(cls, data))
                except ShapeError as exc:
                    raise CorruptFile(path, f"line {lineno}: {exc}") from None
    except (OSError, UnicodeDecodeError):
        pass
    return records


def dumps(record: object, *, indent: int | None = 2) -> str:
    """A record as the JSON text written (secrets redacted)."""
    separators = None if indent else (",", ":")
    return redact(json.dumps(redact_data(encode(record)), indent=indent, separators=separators))


def save(path: Path, record: object) -> None:
    """Write a record, atomically: a crash never leaves half of it."""
    write_text_atomic(path, dumps(record) + "\n")


def append_line(path: Path, record: object) -> None:
    """Add a record as one line of a JSON-lines file, flushed to the disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(dumps(record, indent=None) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
