"""What keeps a session honest, out of the agent's reach: ``.ralph/``, the frozen files, the
cancel key's cache and the hook settings; changing them (or reading the cache) is ``tamper``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

from ralph_verify.guard.command import SimpleCommand
from ralph_verify.guard.policy import Policy, real

#: Agent settings files (relative to the project) that hold ralph-verify's hooks.
HOOK_SETTINGS = (".claude/settings.json", ".claude/settings.local.json", ".codex/hooks.json",
                 ".codex/config.toml", ".github/hooks/ralph-verify.json",
                 ".gemini/settings.json", ".qwen/settings.json")
#: ralph-verify commands that end, rewind or re-wire the session the agent is in.
SESSION_COMMANDS = frozenset({"cancel", "rollback", "recover", "init"})
#: A word naming the user's ralph-verify cache, however it is spelt.
CACHE_WORD = re.compile(r"RALPH_VERIFY_CACHE_DIR|(^|[/.~}])cache/ralph-verify(/|$)|"
                        r"XDG_CACHE_HOME.*ralph-verify|ralph-verify/(cancel|sessions)(/|$)")


_FROZEN = "the session's frozen files"
_CACHE = "ralph-verify's cache (the cancel key, frozen files)"


@lru_cache(maxsize=16)
def _places(root: Path, home: Path, cache_dir: str, xdg: str) -> tuple[tuple[str, str], ...]:
    """``(folder or file, what it is)`` of the session's own, the frozen files and the caches
    first, as strings: a decision asks of every path it meets."""
    caches = [cache_dir] if cache_dir else []
    caches += [f"{xdg}/ralph-verify"] if xdg else []
    caches.append(str(home / ".cache" / "ralph-verify"))
    return ((str(root / ".git" / "ralph-verify"), _FROZEN),
            *((str(real(Path(c))), _CACHE) for c in caches),
            (str(root / ".ralph"), "the session's state and records in .ralph/"),
            *((str(root / name), f"{name}, which holds ralph-verify's hooks (the guard itself)")
              for name in HOOK_SETTINGS))


def protected(path: Path | None, policy: Policy) -> str:
    """What ``path`` is of the session's own (``""``: nothing of it)."""
    if path is None:
        return ""
    env = policy.environ
    text = str(path)
    for place, what in _places(real(policy.root), real(policy.home),
                               env.get("RALPH_VERIFY_CACHE_DIR", ""),
                               env.get("XDG_CACHE_HOME", "")):
        if text == place or text.startswith(place + "/"):
            return what
    return ""


def cache_read(path: Path | None, policy: Policy) -> bool:
    """Whether reading ``path`` reads the user's ralph-verify cache (or the frozen files)."""
    return protected(path, policy) in (_FROZEN, _CACHE)


def changed(targets: Iterable[tuple[str, Path | None]], what: str,
            policy: Policy) -> Iterator[tuple[str, str]]:
    """``tamper`` for each ``(word, path)`` that ``what`` (writes, deletes ...) and is ours."""
    for word, path in targets:
        mine = protected(path, policy)
        if mine:
            yield ("tamper", f"{what} {word}: that is {mine}; only ralph-verify changes it. "
                             "Say what you need in your answer instead")
            return


def words_refusals(command: SimpleCommand) -> Iterator[tuple[str, str]]:
    """A command naming the ralph-verify cache, running ``ralph-verify cancel`` or killing
    ralph-verify."""
    name, words = command.name, command.words
    if any(CACHE_WORD.search(w) for w in words[1:]) and name not in ("echo", "printf"):
        yield ("tamper", f"{name} on ralph-verify's cache (the cancel key, frozen files): "
                         "it is the user's, not the agent's")
    args = [w for w in words[1:] if not w.startswith("-")]
    runs_us = name in ("ralph-verify", "ralph_verify") or (
        name.startswith("python") and args[:2] == ["-m", "ralph_verify"]) or (
        name.startswith("python") and "-m" in words and "ralph_verify" in words)
    if runs_us:
        sub = next((a for a in args if a not in ("-m", "ralph_verify")), "")
        if sub in SESSION_COMMANDS:
            yield ("tamper", f"ralph-verify {sub} ends, rewinds or re-wires the session you "
                             "are in; only the user runs it")
    killer = name in ("kill", "pkill", "killall") or (
        name in ("pgrep", "pidof") and command.substituted_into in ("kill", "xargs"))
    if killer and any("ralph" in w for w in words[1:]):
        yield ("tamper", f"{name} of ralph-verify's processes ends the session; only the "
                         "user stops it")
