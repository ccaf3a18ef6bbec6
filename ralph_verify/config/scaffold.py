"""``ralph-verify init [TARGET]``: the targets plugins declare, and writing files without
clobbering a user's text (a diff, refused unless ``--force``; the rest kept byte for byte)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ralph_verify.config.registry import NamedRegistry
from ralph_verify.errors import UsageError

if TYPE_CHECKING:
    from ralph_verify.config import Config

InitHandler = Callable[["Config"], int]


@dataclass(frozen=True)
class InitTarget:
    """One thing ``init`` can set up: ``ralph-verify init NAME``."""

    name: str
    handler: InitHandler
    help: str
    plugin: str = ""


class InitRegistry(NamedRegistry[InitTarget]):
    """Init targets by name."""

    kind = "init target"
    get = NamedRegistry.find
    targets = NamedRegistry.listed


def init_targets(config: Config) -> InitRegistry:
    registry = InitRegistry()
    config.hook.ralph_register_init_targets(registry=registry)
    return registry


@dataclass(frozen=True)
class FileChange:
    """The new text of one file (``old``: ``None`` for a new one); ``clobbers``: it replaces
    the user's text, so it needs ``--force``."""

    path: Path
    old: str | None
    new: str
    clobbers: bool = False
    #: Why the change is made, shown in the listing ("append .ralph/").
    why: str = ""

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self, root: Path) -> str:
        import difflib

        name = _relative(self.path, root)
        lines = difflib.unified_diff(
            (self.old or "").splitlines(keepends=True), self.new.splitlines(keepends=True),
            fromfile=f"a/{name}" if self.old is not None else "/dev/null",
            tofile=f"b/{name}")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def read_text(path: Path) -> str | None:
    """The file's text exactly as stored (``\\r\\n`` kept), ``None`` if it does not exist."""
    if not path.exists():
        return None
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text: not touching it") from None


def newline_of(text: str | None) -> str:
    """The file's line ending, so appended text matches it."""
    return "\r\n" if text and "\r\n" in text else "\n"


def append_block(text: str | None, block: str) -> str:
    """``text`` with ``block`` (``\\n`` line endings) appended after one blank line."""
    eol = newline_of(text)
    block = block.replace("\n", eol)
    if not text:
        return block
    if not text.endswith(("\n", "\r")):
        text += eol
    if not text.endswith(eol * 2):
        text += eol
    return text + block


def apply_changes(changes: Sequence[FileChange], root: Path, *, force: bool, dry_run: bool,
                  out: TextIO | None = None) -> list[FileChange]:
    """Write ``changes``; refuse clobbering ones unless ``force``. Returns what was written."""
    out = out or sys.stdout
    pending = [change for change in changes if change.changed]
    refused = [change for change in pending if change.clobbers and not force]
    if dry_run or refused:
        for change in (refused or pending):
            out.write(change.diff(root))
        out.flush()
    if refused:
        names = ", ".join(_relative(c.path, root) for c in refused)
        raise UsageError(f"not changing {names}: {refused[0].why or 'it has text of yours'} "
                         "(the diff above shows the change); rerun with --force to make it, "
                         "or edit the file by hand")
    if dry_run:
        return []
    for change in pending:
        change.path.parent.mkdir(parents=True, exist_ok=True)
        with change.path.open("w", encoding="utf-8", newline="") as handle:
            handle.write(change.new)
    return pending


def gitignore_change(path: Path) -> FileChange:
    """``.ralph/`` added to the project's ``.gitignore`` unless it is there."""
    old = read_text(path)
    entries = {line.strip() for line in (old or "").splitlines()}
    if entries & {".ralph", ".ralph/", "/.ralph", "/.ralph/"}:
        return FileChange(path, old, old or "")
    return FileChange(path, old, append_block(old, "# ralph-verify's session files\n.ralph/\n")
                      if old else ".ralph/\n")
