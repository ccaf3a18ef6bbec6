"""The options of the ``types`` check (mypy).

Apart from the plugin so that registering its checks imports no pydantic: the check type names
this module lazily (``options="ralph_verify.plugins.mypy_options:MypyOptions"``).
"""

from __future__ import annotations

from pydantic import Field

from ralph_verify.config.check_options import CheckOptions

__all__ = ["MypyOptions"]


class MypyOptions(CheckOptions):
    """``[tool.ralph-verify.checks.types]``."""

    args: list[str] = Field(
        default_factory=list,
        description="Extra arguments for mypy after ralph-verify's own, e.g. --strict.",
    )
    targets: list[str] | None = Field(
        default=None,
        description="Files, folders or -p/-m options to check (default: the 'files' of the "
                    "project's mypy config, else the project's package(s): src/<pkg> or the "
                    "top-level packages, not the tests; else the root without virtualenvs "
                    "and build output).",
    )
    command: list[str] | None = Field(
        default=None, min_length=1,
        description="The mypy command, e.g. [\"/opt/mypy/bin/mypy\"] (default: the project's "
                    "Python -m mypy if it has mypy, else ralph-verify's mypy with "
                    "--python-executable).",
    )
