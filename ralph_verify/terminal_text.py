"""Text from tools and agents made safe for a terminal, a prompt and a report: an agent's test
may print escape sequences that retitle the window, write the clipboard or overwrite the
verdict line, so every one and every control character but newline and tab is removed."""

from __future__ import annotations

import re

#: Any character that may start what :data:`_CONTROLS` matches: most text has none, and this
#: one class costs a fraction of the whole pattern to compile and to search.
_ANY_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Compiled at its first use (``re`` keeps it): a run whose tools print no control character
#: never pays for it.
_CONTROLS = (
    r"\x1b\[[0-?]*[ -/]*[@-~]?"            # CSI: colours, cursor moves, erase
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks, clipboard (BEL or ST)
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"       # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"                    # any other escape sequence, or a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]?"              # 8-bit CSI
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"       # other C0 and C1 controls (not \t, \n)
)


def strip_controls(text: str) -> str:
    """``text`` without terminal escape sequences or control characters (``\\r\\n`` -> ``\\n``)."""
    if not text or _ANY_CONTROL.search(text) is None:
        return text
    return re.compile(_CONTROLS).sub("", text.replace("\r\n", "\n"))
