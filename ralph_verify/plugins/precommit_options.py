"""The options of the ``precommit`` check.

Apart from the plugin so that registering its checks imports no pydantic: the check type names
this module lazily (``options="ralph_verify.plugins.precommit_options:PrecommitOptions"``).
"""

from __future__ import annotations

from pydantic import Field

from ralph_verify.config.check_options import CheckOptions

__all__ = ["PrecommitOptions"]


class PrecommitOptions(CheckOptions):
    """``[tool.ralph-verify.checks.precommit]``."""

    args: list[str] = Field(
        default_factory=list,
        description="Extra arguments for 'pre-commit run' after '--all-files', e.g. a hook id "
                    "or '--hook-stage pre-push'.",
    )
    command: list[str] | None = Field(
        default=None, min_length=1,
        description="The pre-commit command, e.g. [\"prek\"] (default: pre-commit next to the "
                    "project's Python, next to ralph-verify's or on PATH, else prek).",
    )
