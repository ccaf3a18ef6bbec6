"""The options every check accepts, ``[tool.ralph-verify.checks.NAME]``, as a pydantic model
for third-party checks; apart, so that declaring checks never imports pydantic."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ralph_verify.config.parser import Bound

__all__ = ["CheckOptions"]


class CheckOptions(BaseModel):
    """Options every check accepts in ``[tool.ralph-verify.checks.NAME]``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True,
                              defer_build=True)

    timeout: Annotated[float, Bound(gt=0, duration=True)] | None = Field(
        default=None,
        description="Seconds before the check's tool is killed and the check errors, or a "
                    "duration such as \"10m\" (default: the global timeout, 900).",
    )
