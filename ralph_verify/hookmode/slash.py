"""The ``/ralph-verify`` slash command of the Claude Code plugin: its raw text as ``argv``."""

from __future__ import annotations


def _token(text: str) -> tuple[str, str]:
    """The first shell-like word of ``text`` (quotes kept inside it) and the rest."""
    text = text.lstrip()
    quote = ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char.isspace():
            return text[:index], text[index:]
    return text, ""


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        return word[1:-1]
    return word


def slash_argv(text: str) -> list[str]:
    """``start --until tests fix (the) <bug>`` -> ``["start", "--until", "tests", TASK]``.

    The user's words come verbatim (the plugin passes them through a quoted
    heredoc): options first, then the task as one argument, however many quotes,
    parentheses or angle brackets it holds. ``cancel`` and ``status`` take nothing.
    """
    word, rest = _token(text.strip())
    if word in ("cancel", "status"):
        return [word]
    if word in ("", "help", "--help", "-h"):
        return ["start", "--help"]
    if word != "start":
        rest = text  # "/ralph-verify --until tests fix it" means start
    argv = ["start"]
    while True:
        option, after = _token(rest)
        if not option.startswith("--"):
            break
        name, equals, value = option.partition("=")
        if not equals:
            value, after = _token(after)
        argv += [name, _unquote(value)]
        rest = after
    task = _unquote(rest.strip())
    return [*argv, "--", task] if task else argv
