"""The options of the ``lint`` and ``format`` checks (ruff).

Apart from the plugin so that registering its checks imports no pydantic: the check type names
this module lazily (``options="ralph_verify.plugins.ruff_options:RuffOptions"``).
"""

from __future__ import annotations

from pydantic import Field

from ralph_verify.config.check_options import CheckOptions

__all__ = ["RuffOptions"]


class RuffOptions(CheckOptions):
    """``[tool.ralph-verify.checks.lint]`` and ``[tool.ralph-verify.checks.format]``."""

    args: list[str] = Field(
        default_factory=list,
        description="Extra arguments for ruff after ralph-verify's own, e.g. paths to check "
                    "or --select/--exclude options.",
    )
    command: list[str] | None = Field(
        default=None, min_length=1,
        description="The ruff command, e.g. [\"uvx\", \"ruff\"] (default: ruff next to the "
                    "project's Python, next to ralph-verify's, or on PATH).",
    )
