"""``pyproject.toml`` parsed once per content, for the configuration, the layout and mypy's
targets alike.

Importing the TOML reader and parsing a ``pyproject.toml`` cost some 17 M instructions, 4%
of a check's own process, and a check may read the file three times. A document whose JSON
form is the same document (TOML's dates and times are not) is kept in the user cache under
the SHA-256 of its whole text. Only the commands that decide no loop
(:data:`~ralph_verify.project.caches.KEPT_DATA_COMMANDS`) may read it back (``kept=True``):
the agent runs as the user and, without the sandbox, could write there; every other read
parses the file and writes what it found, so a planted entry does not outlive it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["parse_toml"]

#: The form of a kept document (format 1 held only ``[tool.ralph-verify]``).
_FORMAT = 2


def parse_toml(path: Path, raw: bytes, *, kept: bool = False) -> dict[str, Any]:
    """The document of ``raw``, the bytes just read from ``path``: a caller's own copy.

    Raises what ``tomllib.loads(raw.decode())`` raises: ``UnicodeDecodeError``, the
    reader's ``TOMLDecodeError`` (both ``ValueError``), ``RecursionError``.
    ``kept``: the document kept from an earlier parse of the same text may answer.
    """
    digest = _sha256(raw)
    if kept:
        document = _kept(path, digest)
        if document is not None:
            return document
    from ralph_verify.compat import tomllib

    document = tomllib.loads(raw.decode())
    _keep(path, digest, document)
    return document


def _kept_path(path: Path) -> Path:
    import zlib

    from ralph_verify.project.caches import user_cache_dir

    name = str(path).encode("utf-8", "surrogateescape")
    return user_cache_dir() / "pyproject" / f"{zlib.crc32(name):08x}-{len(name)}.json"


def _kept(path: Path, digest: str) -> dict[str, Any] | None:
    """The document kept for this very text; None when there is none, or any doubt."""
    import json

    try:
        data = json.loads(_kept_path(path).read_bytes())
        if (isinstance(data, dict) and data.get("format") == _FORMAT
                and data.get("path") == str(path) and data.get("sha256") == digest
                and isinstance(data.get("document"), dict)):
            return data["document"]  # type: ignore[no-any-return]  # a dict, checked above
    except (OSError, ValueError, UnicodeError, RecursionError):
        pass
    return None


def _sha256(raw: bytes) -> str:
    import hashlib

    return hashlib.sha256(raw).hexdigest()


def _keep(path: Path, digest: str, document: dict[str, Any]) -> None:
    """Keep a document whose JSON form is the same document; else nothing."""
    import json

    from ralph_verify.project.caches import keep_text

    try:
        text = json.dumps({"format": _FORMAT, "path": str(path), "sha256": digest,
                           "document": document}, allow_nan=False)
        if not _same_types(json.loads(text)["document"], document):
            return
    except (ValueError, TypeError, UnicodeError, RecursionError):
        return
    keep_text(_kept_path(path), text)


def _same_types(a: Any, b: Any) -> bool:
    """``a == b`` and every value of the same type (``1 == 1.0 == True`` in Python)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_types(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same_types, a, b))
    return bool(a == b)
