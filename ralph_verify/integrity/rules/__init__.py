"""The static rules of integrity, one module each, listed in one table
(:class:`~ralph_verify.integrity.rule.Rule`)."""

from __future__ import annotations

from ralph_verify.integrity.rule import Rule
from ralph_verify.integrity.rules import (
    assertions,
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
RULES: tuple[Rule, ...] = (
    Rule(guarded.compare),
    Rule(removed.compare, removed.facts),
    Rule(markers.compare, markers.facts),
    Rule(settings.compare, yields=frozenset({"narrowed-setting"})),
    Rule(infra.compare, infra.facts),
    Rule(weakened.compare, weakened.facts, frozenset(assertions.WHY)),
    Rule(gaming.compare, gaming.facts),
    Rule(standins.compare, standins.facts, frozenset({"stand-in"})),
    Rule(special_cases.compare, special_cases.facts, frozenset({"special-case"})),
    Rule(escapes.compare),
)
