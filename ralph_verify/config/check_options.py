"""The options every check accepts, ``[tool.ralph-verify.checks.NAME]``: a pydantic model.

Kept out of :mod:`ralph_verify.checks.api` so that registering checks, ``--help`` and a check
that reads no options never import pydantic (a tenth of a second and more at start-up);
``ralph_verify.checks.api.CheckOptions`` still names this class (imported on first use).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CheckOptions"]


class CheckOptions(BaseModel):
    """Options every check accepts in ``[tool.ralph-verify.checks.NAME]``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True,
                              defer_build=True)

    timeout: float | None = Field(
        default=None, gt=0, strict=True, allow_inf_nan=False,
        description="Seconds before the check's tool is killed and the check errors "
                    "(default: the global timeout, 900).",
    )
