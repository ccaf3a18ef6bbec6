"""The options of the ``integrity`` check.

Apart from the plugin so that registering its checks imports no pydantic: the check type names
this module lazily (``options="ralph_verify.plugins.integrity_options:IntegrityOptions"``).
"""

from __future__ import annotations

from pydantic import Field

from ralph_verify.config.check_options import CheckOptions

__all__ = ["IntegrityOptions"]


class IntegrityOptions(CheckOptions):
    """``[tool.ralph-verify.checks.integrity]``."""

    protected: list[str] = Field(
        default_factory=list,
        description='Globs of files the agent may neither edit nor delete, e.g. ["conftest.py", '
                    '"tests/data/**"] (** spans folders)')
    keep: list[str] = Field(
        default_factory=lambda: ["tests/**"],
        description='Globs of files the agent may edit but not delete (default ["tests/**"])')
    allow: list[str] = Field(
        default_factory=list,
        description='Findings that are legitimate, frozen at the session\'s start: a source-'
                    'scan finding ("src/x.py:__eq__" a file and function, "src/x.py" or a '
                    'rule: "constant-eq", "forced-bool", "special-case", "call-stack", '
                    '"pytest-internals", "time-patch"), or any other flag by its rule '
                    '("new-type-ignore") or rule and file ("removed-test:tests/test_old.py"); '
                    'see docs/integrity.md')
