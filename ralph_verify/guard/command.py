"""What the guard's shell parser hands on: the simple commands a line would run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: A command line longer than this is refused unread (a hook has a time budget).
MAX_BYTES = 256 * 1024
#: Nested scripts (``sh -c``, ``eval``, inline code running a shell) deeper than this.
MAX_DEPTH = 16
GLOB = re.compile(r"[*?\[]")  #: a word with these is a pattern (``*.py``, ``[ab]``)


def as_fnmatch(pattern: str) -> str:
    """A shell glob as :mod:`fnmatch` reads it: bash's ``[^.]`` is ``[!.]``."""
    return pattern.replace("[^", "[!")


#: A name only known when the command runs: each file ``find`` or ``ls`` hands to ``xargs``.
FOUND = "{found}"
#: What a secret variable's name holds (``API_KEY``, ``GH_TOKEN``, ``DB_PASSWD``).
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|AUTH",
                         re.IGNORECASE)


#: ``(rule, reason)``: what a rule family finds, before it becomes a Refusal.
Found = tuple[str, str]


class Unreadable(Exception):
    """The line cannot be judged (grammar error, size, depth, time); ``str()`` says why."""


@dataclass
class SimpleCommand:
    """One command the line would run: its words (name first) and redirections."""

    words: list[str]
    redirects: list[tuple[str, str]] = field(default_factory=list)
    #: ``|`` when stdin comes from the stage before it, ``<(`` for a process substitution.
    after: str = ""
    #: Wrappers unfolded in front of it (``sudo``, ``env``, ``xargs`` ...).
    wrappers: list[str] = field(default_factory=list)
    #: For the commands of a ``sh -c`` script, ``eval`` or inline code: the outer command.
    inside: str = ""
    #: For the commands of a ``$(...)``: the name of the command whose word holds it.
    substituted_into: str = ""
    #: The commands of the earlier stages of its pipeline (what feeds its stdin).
    upstream: list[SimpleCommand] = field(default_factory=list)
    #: A heredoc's or here-string's text fed to its stdin.
    stdin_text: str | None = None
    #: The folder a wrapper runs it in (``env -C DIR``, ``env --chdir=DIR``, ``sudo -D``).
    chdir: str = ""
    #: Process substitutions among its arguments (``bash <(curl ...)``).
    feeds: list[SimpleCommand] = field(default_factory=list)
    #: Arguments whose glob characters were quoted: patterns the program gets as written.
    patterns: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return command_name(self.words[0]) if self.words else ""

    @property
    def args(self) -> list[str]:
        return self.words[1:]


def command_name(word: str) -> str:
    return word.rsplit("/", 1)[-1]  # ``/usr/bin/sudo`` -> ``sudo``


@dataclass
class Parsed:
    """A line's commands, and the functions it defines that call themselves."""

    commands: list[SimpleCommand]
    recursive_functions: list[str] = field(default_factory=list)
    #: Every variable the line assigns (``X=1 cmd``, ``X=1;``, ``export X=1``), as
    #: ``(name, value)``: some make programs run code (``GIT_SSH_COMMAND``, ``PAGER``).
    assignments: list[tuple[str, str]] = field(default_factory=list)
    #: Endless loops that start processes in the background (``while :; do x & done``).
    endless_forks: int = 0
