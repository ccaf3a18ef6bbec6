"""The progress chart: one line per check over the iterations, as inline SVG (counts on the
left axis, percentages on the right; each point carries its ``data-*`` numbers, so a test can
read them back)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ralph_verify.config.until import parse_spec
from ralph_verify.errors import UsageError
from ralph_verify.records.session import PERCENT_CHECKS, CheckSummary
from ralph_verify.reports.data import SessionData

WIDTH, HEIGHT = 960, 320
LEFT, RIGHT, TOP, BOTTOM = 56, 56, 16, 46
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


@dataclass
class Point:
    """One marker: ``classes`` (``point``/``baseline-point``, ``error``, ``unjudged``), where,
    and what it says."""

    classes: str
    cx: float
    cy: float
    iteration: int
    shown: str
    title: str


@dataclass
class Drawn:
    """One series as drawn: its line, its goal (a percentage's threshold) and its points."""

    series: Series
    path: str
    goal: tuple[float, float, float] | None
    goal_title: str
    points: list[Point]


@dataclass
class Chart:
    """The chart's geometry, for ``templates/chart.svg``: breaker bands, grid, labels, series."""

    iterations: int
    bands: list[tuple[str, int, float, float, str]]
    grid: list[tuple[float, str, str]]
    labels: list[tuple[float, str]]
    drawn: list[Drawn]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    plot_h: int = HEIGHT - TOP - BOTTOM

    @property
    def middle(self) -> float:
        return (self.left + self.right) / 2


def chart(data: SessionData) -> Chart:
    """What the chart draws: each check's line over the iterations, on a count axis (left)
    and a percentage axis (right)."""
    series = build_series(data)
    numbers = [it.number for it in data.iterations]
    last = max(numbers, default=0)
    span = max(last, 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    counts = [v for s in series if not s.percent for v in s.values.values() if v is not None]
    top, ticks = _axis(max(counts, default=0.0))

    def x(number: float) -> float:
        return round(LEFT + plot_w * number / span, 1)

    def y(value: float, percent: bool) -> float:
        scale = 100.0 if percent else top
        return round(TOP + plot_h * (1 - min(value, scale) / scale), 1)

    half = plot_w / span / 2
    bands = [("breaker-open" if it.breaker == "open" else "breaker-half-open", it.number,
              max(LEFT, x(it.number) - half),
              min(WIDTH - RIGHT, x(it.number) + half) - max(LEFT, x(it.number) - half),
              f"iteration {it.number}: breaker {it.breaker}")
             for it in data.iterations if it.breaker in ("half-open", "open")]
    percent = any(s.percent for s in series)
    grid = [(y(top * step / ticks, False), f"{top * step / ticks:g}",
             f"{100 * step / ticks:.0f}%" if percent else "") for step in range(ticks + 1)]
    labels_at = [0, *numbers] if data.baseline is not None else numbers
    every = max(1, math.ceil(len(labels_at) / 20))
    labels = [(x(number), "base" if number == 0 else str(number))
              for index, number in enumerate(labels_at) if index % every == 0 or number == last]
    drawn = [_draw(s, x, y, data.baseline is not None, top) for s in series]
    return Chart(len(numbers), bands, grid, labels, drawn)


def _threshold(spec: str) -> float | None:
    """The number of ``coverage>=80`` (the line a percentage series must reach)."""
    try:
        parsed = parse_spec(spec)
    except UsageError:
        return None
    return parsed.threshold if parsed.op is not None else None


def _draw(s: Series, x: Any, y: Any, with_baseline: bool, top: float) -> Drawn:
    goal = _threshold(s.spec) if s.percent else None
    line = None if goal is None else (x(0), x(max(s.values, default=0)), y(goal, True))
    path: list[str] = []
    for number in sorted(s.values):
        value = s.values[number]
        if value is None:
            path.append("")
            continue
        command = "L" if path and path[-1] else "M"
        path.append(f"{command}{x(number):.1f},{y(value, s.percent):.1f}")
    unit = "%" if s.percent else ""
    points = []
    for number in sorted(s.values):
        value = s.values[number]
        where = "baseline" if number == 0 else f"iteration {number}"
        if value is None and number in s.unjudged:
            # Off the scale, under the axis: not judged is no number, neither 0% nor 100%.
            cls, cy, text, shown = "unjudged", y(0, False) + 11, "not judged this time", "none"
        elif value is None:
            cls, cy, text, shown = "error", y(top, False), "could not decide", "error"
        else:
            cls, cy, text, shown = "", y(value, s.percent), f"{value:g}{unit}", f"{value:g}"
        kind = "baseline-point" if number == 0 and with_baseline else "point"
        points.append(Point(f"{kind} {cls}".strip(), x(number), cy, number, shown,
                            f"{where} · {s.label}: {text}"))
    return Drawn(s, " ".join(p for p in path if p), line,
                 f"{s.spec}: goal {goal:g}%" if goal is not None else "", points)
