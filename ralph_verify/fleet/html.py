"""``fleet/report.html``: one self-contained page for a whole fleet.

Verdict totals, a chart of loops completed over time (inline SVG, no external file), and a
table of loops, each linking to the loop's own report (``loops/NAME/report.html``). Rows and
points carry ``data-*`` attributes with the raw values; a small script checks that the chart's
points agree with the table and says so in ``#report-status`` (``data-state="ok"``), which a
headless browser can read.

The page is ``templates/fleet.html``, rendered by jinja2 with autoescape.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ralph_verify.records.fleet import FleetDocument, Totals

WIDTH, HEIGHT, PAD = 720, 240, 40


def _seconds(stamp: str | None) -> float | None:
    try:
        return datetime.fromisoformat(stamp).timestamp() if stamp else None
    except ValueError:
        return None


def _finish_offsets(document: FleetDocument) -> dict[str, float]:
    """Seconds from the fleet's start to each loop's end, for loops that ran."""
    start = _seconds(document.started_at)
    offsets: dict[str, float] = {}
    for loop in document.loops:
        end = _seconds(loop.finished_at)
        if start is not None and end is not None and loop.verdict not in (None, "not-run"):
            offsets[loop.name] = max(end - start, 0.0)
    return offsets


def _chart(offsets: dict[str, float], total: int) -> dict[str, Any]:
    """The chart's geometry: loops finished (up) over seconds since the fleet started."""
    ordered = sorted(offsets.items(), key=lambda item: (item[1], item[0]))
    span = max([value for _, value in ordered] + [1.0])
    scale_x = (WIDTH - 2 * PAD) / span
    scale_y = (HEIGHT - 2 * PAD) / max(total, 1)
    path = [f"M{PAD},{HEIGHT - PAD}"]
    points = []
    for count, (name, offset) in enumerate(ordered, start=1):
        x, y = PAD + offset * scale_x, HEIGHT - PAD - count * scale_y
        path.append(f"H{x:.1f}V{y:.1f}")
        points.append((name, offset, count, x, y))
    return {"width": WIDTH, "height": HEIGHT, "pad": PAD, "span": span, "path": "".join(path),
            "points": points}


def render_fleet_report(document: FleetDocument, total: Totals) -> str:
    """The page for ``fleet.json``'s ``document``, whose verdict ``total`` the caller counted."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("ralph_verify.fleet", "templates"),
                             autoescape=True, finalize=lambda value: "" if value is None
                             else value)
    offsets = _finish_offsets(document)
    return env.get_template("fleet.html").render(
        document=document, total=total, offsets=offsets, chart=_chart(offsets, total.loops))
