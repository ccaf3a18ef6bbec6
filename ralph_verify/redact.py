"""Keep secrets out of feedback, logs and reports.

Values of environment variables whose names look secret are replaced by
``[redacted:NAME]`` wherever they appear in text we show or feed back.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
#: Shorter values are too likely to occur by chance ("1", "true").
_MIN_LENGTH = 6


def secret_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Map each secret-looking value in the environment to the variable's name."""
    env = os.environ if environ is None else environ
    return {
        value: name
        for name, value in env.items()
        if _SECRET_NAME.search(name) and len(value) >= _MIN_LENGTH
    }


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Return ``text`` with every secret environment value replaced."""
    for value, name in sorted(secret_values(environ).items(), key=lambda kv: -len(kv[0])):
        if value in text:
            text = text.replace(value, f"[redacted:{name}]")
    return text
