"""The methods ``dataclasses`` writes for each class, compiled once and kept between runs.

``@dataclass`` writes the source text of ``__init__``, ``__repr__``, ``__eq__`` (frozen:
``__setattr__``, ``__delattr__``, ``__hash__`` too) and compiles it with ``exec`` while the
class is built. For the 25 classes the command builds before its first tool starts,
parsing and compiling that text is some 8% of its own start (callgrind: 33 M of 400 M
instructions for ``check --until lint``).

For the ``ralph-verify`` command only (``ralph_verify/__init__.py`` decides; a process that
imports ralph-verify as a library is left alone), and only for the commands that decide no
loop (:data:`KEPT_CODE_COMMANDS`, as for the kept ``[tool.ralph-verify]`` table: the agent
runs as the user and, without the sandbox, could write the user cache, so a loop's commands,
the agent hooks and the guard compile their own), the ``dataclasses`` module gets an
``exec`` of its own: it takes the compiled code from a file in the user cache, keyed by the
exact source text, and compiles (and keeps) only what it has not seen. The same text
compiles to the same code, so each class is built exactly as before. One file per Python
version, whose bytecode it holds; a missing, unreadable or foreign file is a cache miss,
never an error, and the file is rewritten whole (atomically) only when a run compiled
something new.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from ralph_verify.project.caches import KEPT_DATA_COMMANDS, keep_bytes, user_cache_dir

#: The commands that may build their classes from kept code (and no command: ``--help``,
#: ``--version``). A word that is none of them (``-p no:X``'s value too) compiles: slower,
#: never less safe.
KEPT_CODE_COMMANDS = KEPT_DATA_COMMANDS
#: At most this many texts are kept: past it, a run keeps only what it used itself.
MAX_ENTRIES = 2_000

_known: dict[str, CodeType] = {}
_used: set[str] = set()
_compiled = 0


def cache_path() -> Path:
    """The file of this Python version (its bytecode and marshal format are its own)."""
    return (user_cache_dir() / "dataclass-code"
            / f"{sys.implementation.cache_tag}-{sys.hexversion:x}.marshal")


def _exec(source: Any, globals: dict[str, Any] | None = None,
          locals: dict[str, Any] | None = None) -> None:
    """``exec`` as ``dataclasses`` calls it, with the code of a known text taken as kept."""
    global _compiled
    if type(source) is str:
        code = _known.get(source)
        if code is None:
            # exec() of a string inherits no __future__ flag from dataclasses: neither may this.
            code = compile(source, "<string>", "exec", dont_inherit=True)
            _known[source] = code
            _compiled += 1
        _used.add(source)
        source = code
    builtins.exec(source, globals, locals)


def _load(path: Path) -> dict[str, CodeType]:
    try:
        # loads() of the bytes: load() of the file reads it object by object, ten times
        # the cost.
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {text: code for text, code in data.items()
            if type(text) is str and type(code) is CodeType}


def save() -> None:
    """Write what this run compiled, with what was kept (or, past :data:`MAX_ENTRIES`, with
    what this run used); nothing when it compiled nothing. Never raises."""
    if not _compiled:
        return
    kept = _known if len(_known) <= MAX_ENTRIES else {
        text: code for text, code in _known.items() if text in _used}
    with contextlib.suppress(ValueError):  # an object marshal cannot write: keep nothing
        keep_bytes(cache_path(), marshal.dumps(kept))


def keep_dataclass_code(args: list[str]) -> None:
    """For a command line (``args``, without the program) whose command decides no loop,
    give ``dataclasses`` the caching ``exec`` (once; not over one somebody else set) and
    save the new code at exit."""
    word = next((arg for arg in args if not arg.startswith("-")), None)
    if word is not None and word not in KEPT_CODE_COMMANDS:
        return
    import atexit
    import dataclasses

    current = vars(dataclasses).get("exec")
    if current is not None:
        return  # ours already, or another tool's: leave it
    _known.update(_load(cache_path()))
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # a module global, read before builtins
    atexit.register(save)


def compiled_this_run() -> int:
    """How many texts this process compiled (0: every class came from the kept file)."""
    return _compiled
