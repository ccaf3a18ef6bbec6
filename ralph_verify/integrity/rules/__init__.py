"""The static rules of integrity, one module each (:class:`~ralph_verify.integrity.rule.Rule`),
listed in one tuple as pre-commit lists its languages.
"""

from __future__ import annotations

from ralph_verify.integrity.rule import Rule
from ralph_verify.integrity.rules import (
    escapes,
    gaming,
    guarded,
    infra,
    markers,
    removed,
    settings,
    special_cases,
    standins,
    weakened,
)

#: Every rule, in the order their findings are reported.
RULES: tuple[Rule, ...] = (guarded, removed, markers, settings, infra, weakened, gaming,
                           standins, special_cases, escapes)
