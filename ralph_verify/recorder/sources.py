"""The names and sources of the plugins ralph-verify writes into the project's pytest.

Apart from :mod:`.read`, so that preparing a pytest run imports no reader (the JUnit
reader and its dataclasses are imported once pytest has finished).
"""

from __future__ import annotations

from pathlib import Path

PLUGIN_NAME = "ralph_verify_recorder"
#: Its sibling for affected-tests-first (:mod:`ralph_verify.recorder.affected_plugin`).
AFFECTED_PLUGIN_NAME = "ralph_verify_affected"


def plugin_source(module: str = "plugin") -> str:
    """A plugin's source, to be written where the project's interpreter can import it."""
    return (Path(__file__).with_name(f"{module}.py")).read_text(encoding="utf-8")
