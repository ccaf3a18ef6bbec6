"""``.ralph/report.html``: one self-contained page rendered by jinja2 (autoescape) from
``templates/report.html``, every value redacted and stripped of terminal controls. Cells carry
``data-*`` numbers a script checks the chart against, so tests can compare."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.display import duration
from ralph_verify.markers import VERSION
from ralph_verify.records.plugin_state import BreakerState
from ralph_verify.records.session import CheckSummary
from ralph_verify.redact import cut, redact
from ralph_verify.reports.chart import chart
from ralph_verify.reports.data import IterationData, SessionData
from ralph_verify.reports.tasks import task_section
from ralph_verify.state_files import now_iso
from ralph_verify.terminal_text import strip_controls

if TYPE_CHECKING:
    import jinja2

#: Characters of feedback and task shown per cell; the files have the rest.
TEXT_LIMIT = 6000


def _seconds(value: float | None) -> str:
    if value is None:
        return "unknown"
    return f"{value:.2f}s" if value < 10 else duration(value)


def _clip(text: str) -> str:
    text = redact(text)  # before the cut: a cut token is no longer recognisable
    return text if len(text) <= TEXT_LIMIT else (
        text[:TEXT_LIMIT] + f"\n[... {len(text) - TEXT_LIMIT} more characters in the files]")


def _shown(value: Any) -> Any:
    """Every value on its way into the page: redacted, without terminal controls (the
    engine escapes it after); the template's own markup passes as it is."""
    from markupsafe import Markup

    if value is None or isinstance(value, (Markup, int, float)):
        return value
    return strip_controls(redact(str(value)))


@cache
def _environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("ralph_verify.reports", "templates"),
                             autoescape=True, finalize=_shown, undefined=jinja2.StrictUndefined,
                             trim_blocks=False, keep_trailing_newline=True)
    env.filters.update(seconds=_seconds, clip=_clip, started=_started,
                       short=lambda text, limit=70: cut(str(text), limit, "…"))
    return env


@dataclass
class Cell:
    """One check in one row: its status, its number, and its summary unless the row above
    said the same (an unchanged sentence repeated in every row says nothing new)."""

    status: str
    shown: str
    metric: float | None
    summary: str
    short: str


def _cells(checks: list[CheckSummary], specs: list[tuple[str, str]],
           above: dict[str, str]) -> dict[str, Cell | None]:
    """Each column's cell of one row (``None``: the check did not run then)."""
    cells: dict[str, Cell | None] = dict.fromkeys((spec for spec, _ in specs), None)
    for check in checks:
        value = check.series_value
        # No number: an error, or a check not judged this time (coverage of a partial run).
        shown = f"{value:g}" if value is not None else "error" if check.status == "error" \
            else "none"
        summary = " ".join(check.summary.split())
        said = above.get(check.spec) == f"{check.status} {summary}"
        above[check.spec] = f"{check.status} {summary}"
        cells[check.spec] = Cell(check.status, shown, check.metric, summary,
                                 "" if said else cut(summary, 70, "…"))
    return cells


@dataclass
class Row:
    """One iteration's row, with its links relative to the page."""

    iteration: IterationData
    cells: dict[str, Cell | None]
    prompt: str
    log: str
    checks: str


def _href(target: Path, base: Path) -> str:
    """The link to ``target`` from the page's folder, or ``""`` when the file is gone."""
    return Path(os.path.relpath(target, base)).as_posix() if target.exists() else ""


def _started(text: str) -> str:
    """``2026-11-29 03:36:51 UTC`` from the ISO time the state keeps."""
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text or "?"
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _total(values: list[float | int | None]) -> float | None:
    """The sum of the values known (``None``: no agent said)."""
    known = [float(v) for v in values if v is not None]
    return sum(known) if known else None


def _totals(data: SessionData) -> dict[str, Any]:
    """Where the session's time went, and its tokens and cost, as the page shows them."""
    agents = [it.agent for it in data.iterations]
    tokens_in = _total([a.input_tokens for a in agents])
    tokens_out = _total([a.output_tokens for a in agents])
    unknown = tokens_in is None and tokens_out is None
    cost = _total([a.cost_usd for a in agents])
    verification_s = sum(it.verification_s for it in data.iterations)
    return {
        "wall": float(data.state.elapsed_s or 0),
        "agent": float(sum(a.duration_s or 0.0 for a in agents)),
        "verification": verification_s + (data.baseline.duration_s if data.baseline else 0.0),
        "tokens": "unknown" if unknown else
        f"{int(tokens_in or 0):,} in / {int(tokens_out or 0):,} out",
        "tokens_raw": None if unknown else f"{int(tokens_in or 0)}/{int(tokens_out or 0)}",
        "cost": "unknown" if cost is None else f"${cost:.2f}", "cost_raw": cost,
    }


def render_report(data: SessionData, output: Path) -> str:
    """The whole page; links are relative to ``output``'s folder."""
    base = output.parent
    state = data.state
    breaker = BreakerState.of(state.plugin_state)
    verdict = data.verdict
    specs = data.specs()
    above: dict[str, str] = {}
    baseline = None
    if data.baseline is not None:
        baseline = {"duration_s": data.baseline.duration_s,
                    "cells": _cells(data.baseline_checks, specs, above),
                    "checks": _href(data.dir / "iterations" / "000" / "verification.json",
                                    base)}
    rows = []
    for iteration in data.iterations:
        folder = data.dir / "iterations" / f"{iteration.number:03d}"
        rows.append(Row(iteration, _cells(iteration.checks, specs, above),
                        _href(folder / "prompt.md", base), _href(folder / "agent.log", base),
                        _href(folder / "verification.json", base)))
    totals = _totals(data)
    wall = totals["wall"]
    drawn = chart(data)
    bands = [(cls, label) for cls, label in (("breaker-half-open", "breaker half-open"),
                                             ("breaker-open", "breaker open"))
             if any(band[0] == cls for band in drawn.bands)]
    return _environment().get_template("report.html").render(
        data=data, verdict=state.verdict_name or state.status, totals=totals,
        share=lambda part: f"{100 * part / wall:.0f}% of wall" if wall > 0 else "-",
        breaker_rule=breaker if (verdict is not None and verdict.verdict == "stalled"
                                 and breaker.rule and breaker.reason not in verdict.reason)
        else None,
        started=_started(state.started_at or ""), tasks=task_section(data.dir, state.task or ""),
        chart=drawn, bands=bands, specs=specs, baseline=baseline, rows=rows,
        repeats=data.repeats(), findings=data.integrity_findings(),
        integrity_ran=any(name == "integrity" for _, name in specs),
        refusals=data.safety.by_rule, generated=now_iso(), version=VERSION)
