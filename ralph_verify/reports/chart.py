"""The progress chart: one line per check over the iterations, as inline SVG.

Counts (failing tests, lint and type errors, other failures) use the left
axis, percentages (coverage) the right one, 0-100. The baseline is drawn as a
hollow marker at x = 0; each iteration has one ``circle.point`` per series
carrying ``data-series``, ``data-iteration`` and ``data-value``, so a test
(or a person with the inspector) can read the numbers back. Iterations in
which the stall breaker was half-open or open are shaded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ralph_verify.config.until import parse_spec
from ralph_verify.errors import UsageError
from ralph_verify.records.session import PERCENT_CHECKS, CheckSummary
from ralph_verify.reports.data import SessionData

WIDTH, HEIGHT = 960, 320
LEFT, RIGHT, TOP, BOTTOM = 56, 56, 16, 40
PALETTE = ("#d9480f", "#1971c2", "#7048e8", "#2b8a3e", "#c2255c", "#0c8599", "#e67700",
           "#5c940d")


@dataclass
class Series:
    """One check's line in the chart: its value at each iteration."""

    spec: str
    name: str
    label: str
    percent: bool
    colour: str
    #: iteration number -> value (``None``: the check could not decide).
    values: dict[int, float | None] = field(default_factory=dict)
    #: iterations where the check was not judged (coverage of a partial run): no number,
    #: and no error either.
    unjudged: set[int] = field(default_factory=set)


def _noun(check: CheckSummary) -> str:
    counts = check.counts
    if check.name in PERCENT_CHECKS:
        return "%"
    if "failed" in counts:
        return "failing tests"
    if "errors" in counts:
        return "errors"
    return "failures"


def build_series(data: SessionData) -> list[Series]:
    """One series per check that ever had a problem, and every percentage check."""
    found: dict[str, Series] = {}
    verifications: list[tuple[int, list[CheckSummary]]] = []
    if data.baseline is not None:
        verifications.append((0, data.baseline_checks))
    verifications += [(it.number, it.checks) for it in data.iterations]
    for number, checks in verifications:
        for check in checks:
            spec = check.spec
            series = found.get(spec)
            if series is None:
                name = check.name
                noun = _noun(check)
                series = Series(spec, name, f"{spec} ({noun})", name in PERCENT_CHECKS,
                                PALETTE[len(found) % len(PALETTE)])
                found[spec] = series
            series.values[number] = check.series_value
            if check.status == "skipped":
                series.unjudged.add(number)
    return [s for s in found.values()
            if s.percent or any((v is None and n not in s.unjudged) or (v or 0) > 0
                                for n, v in s.values.items())]


def _nice_max(value: float) -> float:
    """The top of the count axis: four ticks of a round whole step (1, 2, 5, 10, 20, 25...)."""
    wanted = max(value, 1.0) / 4
    magnitude = 10.0 ** math.floor(math.log10(wanted))
    steps = [s * magnitude for s in (1, 2, 2.5, 5, 10) if (s * magnitude).is_integer()]
    return 4 * next(step for step in steps if step >= wanted)


def _axis(value: float) -> tuple[float, int]:
    """The count axis' top and its number of steps: one step per unit up to 4 (one failure
    is an axis of 0-1, not 0-4), else four round steps."""
    if value <= 4:
        top = max(1, math.ceil(value))
        return float(top), top
    return _nice_max(value), 4


def render_chart(data: SessionData) -> str:
    """The ``<svg>`` element (no XML declaration: it is inlined in the page)."""
    series = build_series(data)
    numbers = [it.number for it in data.iterations]
    last = max(numbers, default=0)
    span = max(last, 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    counts = [v for s in series if not s.percent for v in s.values.values() if v is not None]
    top, ticks = _axis(max(counts, default=0.0))

    def x(number: float) -> float:
        return LEFT + plot_w * number / span

    def y(value: float, percent: bool) -> float:
        scale = 100.0 if percent else top
        return TOP + plot_h * (1 - min(value, scale) / scale)

    out = [f'<svg id="progress-chart" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'role="img" aria-label="progress per iteration" data-iterations="{len(numbers)}">']
    half = plot_w / span / 2
    for iteration in data.iterations:
        if iteration.breaker in ("half-open", "open"):
            cls = "breaker-open" if iteration.breaker == "open" else "breaker-half-open"
            left = max(LEFT, x(iteration.number) - half)
            right = min(WIDTH - RIGHT, x(iteration.number) + half)
            out.append(f'<rect class="{cls}" data-iteration="{iteration.number}" '
                       f'x="{left:.1f}" y="{TOP}" width="{right - left:.1f}" height="{plot_h}">'
                       f'<title>iteration {iteration.number}: breaker {iteration.breaker}'
                       '</title></rect>')
    for step in range(ticks + 1):
        value = top * step / ticks
        ypos = y(value, False)
        out.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{ypos:.1f}" '
                   f'y2="{ypos:.1f}"/>')
        out.append(f'<text class="axis" x="{LEFT - 6}" y="{ypos + 4:.1f}" '
                   f'text-anchor="end">{value:g}</text>')
        if any(s.percent for s in series):
            out.append(f'<text class="axis" x="{WIDTH - RIGHT + 6}" y="{ypos + 4:.1f}">'
                       f'{100 * step / ticks:.0f}%</text>')
    labels = [0, *numbers] if data.baseline is not None else numbers
    every = max(1, math.ceil(len(labels) / 20))
    for index, number in enumerate(labels):
        if index % every == 0 or number == last:
            out.append(f'<text class="axis" x="{x(number):.1f}" y="{HEIGHT - BOTTOM + 16}" '
                       f'text-anchor="middle">{"base" if number == 0 else number}</text>')
    out.append(f'<text class="axis" x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 4}" '
               'text-anchor="middle">iteration</text>')
    for s in series:
        out += _draw_series(s, x, y, data.baseline is not None, top)
    out.append("</svg>")
    return "\n".join(out)


def _threshold(spec: str) -> float | None:
    """The number of ``coverage>=80`` (the line a percentage series must reach)."""
    try:
        parsed = parse_spec(spec)
    except UsageError:
        return None
    return parsed.threshold if parsed.op is not None else None


def _draw_series(s: Series, x: Any, y: Any, with_baseline: bool, top: float) -> list[str]:
    out = [f'<g class="series" data-series="{escape(s.spec)}" style="--c:{s.colour}">']
    goal = _threshold(s.spec) if s.percent else None
    if goal is not None:
        ypos = y(goal, True)
        out.append(f'<line class="goal" x1="{x(0):.1f}" x2="{x(max(s.values, default=0)):.1f}" '
                   f'y1="{ypos:.1f}" y2="{ypos:.1f}"><title>{escape(s.spec)}: goal '
                   f"{goal:g}%</title></line>")
    path: list[str] = []
    for number in sorted(s.values):
        value = s.values[number]
        if value is None:
            path.append("")
            continue
        command = "L" if path and path[-1] else "M"
        path.append(f"{command}{x(number):.1f},{y(value, s.percent):.1f}")
    segments = " ".join(p for p in path if p)
    if segments:
        out.append(f'<path class="line" d="{segments}"/>')
    unit = "%" if s.percent else ""
    for number in sorted(s.values):
        value = s.values[number]
        where = "baseline" if number == 0 else f"iteration {number}"
        if value is None and number in s.unjudged:
            cls, cy, text = "unjudged", y(top, False), "not judged this time"
            shown = "none"
        elif value is None:
            cls, cy, text = "error", y(top, False), "could not decide"
            shown = "error"
        else:
            cls, cy, text = "", y(value, s.percent), f"{value:g}{unit}"
            shown = f"{value:g}"
        kind = "baseline-point" if number == 0 and with_baseline else "point"
        classes = f"{kind} {cls}".strip()
        out.append(f'<circle class="{classes}" cx="{x(number):.1f}" cy="{cy:.1f}" '
                   f'r="4" data-series="{escape(s.spec)}" data-iteration="{number}" '
                   f'data-value="{shown}"><title>{where} · {escape(s.label)}: {text}</title>'
                   "</circle>")
    out.append("</g>")
    return out


def legend(data: SessionData) -> str:
    items = []
    for s in build_series(data):
        items.append(f'<button type="button" class="legend-item" data-series="{escape(s.spec)}"'
                     f' style="--c:{s.colour}" aria-pressed="true">{escape(s.label)}</button>')
    if any(it.breaker == "half-open" for it in data.iterations):
        items.append('<span class="legend-band breaker-half-open">breaker half-open</span>')
    if any(it.breaker == "open" for it in data.iterations):
        items.append('<span class="legend-band breaker-open">breaker open</span>')
    return f'<div class="legend">{"".join(items)}</div>'
