"""``-p`` on the command line, as pytest has it: ``-p no:NAME`` disables a plugin, taken
out before the options are parsed; the old ``-p PROMPT.md`` of ``run`` and ``fleet`` still
works, with a note that it is deprecated."""

from __future__ import annotations

from collections.abc import Sequence

from ralph_verify.errors import UsageError

__all__ = ["PROMPT_COMMANDS", "deprecated_prompt", "split_disable_args"]

#: The commands with a task file, which the old ``-p FILE`` named (now ``-P``/``--prompt``).
PROMPT_COMMANDS = ("run", "fleet")


def split_disable_args(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """Take ``-p no:NAME`` out of ``args``; the old ``-p PROMPT.md`` of ``run`` and ``fleet``
    becomes ``--prompt PROMPT.md`` (deprecated: :func:`deprecated_prompt` says so). Any other
    command's ``-p FILE`` is a usage error saying what ``-p`` takes."""
    rest: list[str] = []
    disabled: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "-p" and index + 1 < len(args) and args[index + 1].startswith("no:"):
            disabled.append(args[index + 1][3:])
            index += 2
            continue
        if arg == "-p" and index + 1 < len(args) and not args[index + 1].startswith("-"):
            if not _has_prompt(args[:index]):
                raise UsageError(
                    f"-p {args[index + 1]}: -p disables a plugin and takes no:NAME, e.g. "
                    "-p no:cache (see 'ralph-verify plugins'); a prompt file is "
                    "'run -P FILE'")
            rest += ["--prompt", args[index + 1]]
            index += 2
            continue
        if arg.startswith("-pno:"):
            disabled.append(arg[5:])
        else:
            rest.append(arg)
        index += 1
    return rest, disabled


def _has_prompt(before: Sequence[str]) -> bool:
    """Whether the command given before this point takes a task file (``run``, ``fleet``)."""
    return any(word in PROMPT_COMMANDS for word in before)


def deprecated_prompt(args: Sequence[str]) -> str | None:
    """The note for ``-p FILE`` (not ``-p no:NAME``): ``-p`` is pytest's plugin switch."""
    for index, arg in enumerate(args[:-1]):
        if (arg == "-p" and not args[index + 1].startswith(("no:", "-"))
                and _has_prompt(args[:index])):
            return (f"note: '-p {args[index + 1]}' for the task file is deprecated and goes in "
                    f"the next release: use -P {args[index + 1]} (or --prompt); -p is only "
                    "-p no:PLUGIN")
    return None
