"""``.ralph/report.html``: one self-contained page (inline CSS, SVG and JS; no network).

Sections: the verdict and why, the numbers (iterations, wall time, agent vs
verification time, tokens, cost), the progress chart, one table row per
iteration (diffstat, each check's status and number, the feedback the agent
read, links to its prompt and log), the failures that kept coming back, and
the integrity findings. Cells carry ``data-*`` attributes with the raw
numbers, so tests compare the page with ``history.jsonl``. A small script
checks the chart against the data and writes the outcome into
``#report-status`` (``data-state="ok"``), which a headless browser can read.
"""

from __future__ import annotations

import os
from html import escape
from pathlib import Path
from typing import Any

from ralph_verify.display import duration
from ralph_verify.records.plugin_state import BreakerState
from ralph_verify.records.session import AgentRecord, CheckSummary
from ralph_verify.redact import cut, redact
from ralph_verify.reports.chart import legend, render_chart
from ralph_verify.reports.data import IterationData, SessionData
from ralph_verify.reports.tasks import task_section
from ralph_verify.state_files import now_iso
from ralph_verify.terminal_text import strip_controls

#: Characters of feedback and task shown per cell; the files have the rest.
TEXT_LIMIT = 6000

CSS = """
:root { --fg:#1d2125; --muted:#5f6b76; --line:#dde2e6; --bg:#fff; --soft:#f4f6f8;
  --pass:#2b8a3e; --fail:#c92a2a; --err:#9c36b5; --skip:#868e96; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; padding: 24px; max-width: 1200px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.muted { color: var(--muted); } code, pre { font: 12px/1.4 ui-monospace, Menlo, monospace; }
pre { background: var(--soft); padding: 8px; overflow-x: auto; white-space: pre-wrap;
  max-height: 360px; }
.verdict { display: inline-block; padding: 3px 10px; border-radius: 12px; color: #fff;
  font-weight: 600; background: var(--fail); }
.verdict.v-complete { background: var(--pass); } .verdict.v-cancelled { background: var(--skip); }
.verdict.v-stalled, .verdict.v-budget { background: #e67700; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr));
  gap: 8px; margin: 16px 0; padding: 0; }
.facts div { background: var(--soft); border-radius: 6px; padding: 8px 10px; }
.facts dt { color: var(--muted); font-size: 12px; }
.facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.facts div.wide { grid-column: span 2; }
.chart { width: 100%; height: auto; background: #fff; border: 1px solid var(--line); }
.chart .grid { stroke: var(--line); } .chart .axis { fill: var(--muted); font-size: 11px; }
.chart .line { fill: none; stroke: var(--c); stroke-width: 2; }
.chart .goal { stroke: var(--c); stroke-width: 1; stroke-dasharray: 6 4; opacity: .7; }
.chart circle { fill: var(--c); stroke: #fff; stroke-width: 1; }
.chart circle.baseline-point { fill: #fff; stroke: var(--c); stroke-width: 2; }
.chart circle.error { fill: #fff; stroke: var(--err); stroke-width: 3; }
.chart circle.unjudged { fill: #fff; stroke: var(--skip); stroke-width: 2; }
.chart .breaker-half-open { fill: #ffe8cc; } .chart .breaker-open { fill: #ffc9c9; }
.chart .hidden { display: none; }
.legend { display: flex; flex-wrap: wrap; gap: 8px; margin: 6px 0; }
.legend-item { border: 1px solid var(--line); background: #fff; border-radius: 12px;
  padding: 2px 10px 2px 8px; cursor: pointer; font: inherit; }
.legend-item::before { content: ""; display: inline-block; width: 10px; height: 10px;
  border-radius: 5px; background: var(--c); margin-right: 6px; }
.legend-item[aria-pressed="false"] { opacity: .45; }
.legend-band { padding: 2px 10px; border-radius: 12px; }
.legend-band.breaker-half-open { background: #ffe8cc; }
.legend-band.breaker-open { background: #ffc9c9; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left;
  vertical-align: top; }
th { background: var(--soft); font-weight: 600; font-size: 12px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.status-passed { color: var(--pass); } .status-failed { color: var(--fail); }
.status-error { color: var(--err); } .status-skipped { color: var(--skip); }
td.check b { white-space: nowrap; }
td.check { max-width: 190px; overflow-wrap: anywhere; } td.check b { font-weight: 600; }
.files { list-style: none; margin: 0; padding: 0; }
.add { color: var(--pass); } .del { color: var(--fail); }
tr.breaker-half-open td:first-child { box-shadow: inset 4px 0 #ffa94d; }
tr.breaker-open td:first-child { box-shadow: inset 4px 0 #fa5252; }
details summary { cursor: pointer; color: var(--muted); }
#report-status { font-size: 11px; color: var(--muted); }
"""

SCRIPT = """
(function () {
  var status = document.getElementById("report-status");
  function fail(message) {
    status.dataset.state = "error";
    status.textContent = "report check failed: " + message;
  }
  window.addEventListener("error", function (event) { fail(String(event.message)); });
  try {
    var chart = document.getElementById("progress-chart");
    var expected = Number(chart.dataset.iterations);
    var series = chart.querySelectorAll("g.series");
    var points = 0;
    for (var i = 0; i < series.length; i++) {
      var count = series[i].querySelectorAll("circle.point").length;
      if (count !== expected) {
        throw new Error("series " + series[i].dataset.series + " has " + count +
                        " points for " + expected + " iterations");
      }
      points += count;
    }
    var rows = document.querySelectorAll("tr.iteration").length;
    if (rows !== expected) { throw new Error(rows + " table rows for " + expected); }
    document.querySelectorAll(".legend-item").forEach(function (button) {
      button.addEventListener("click", function () {
        var on = button.getAttribute("aria-pressed") !== "true";
        button.setAttribute("aria-pressed", on ? "true" : "false");
        chart.querySelectorAll("g.series").forEach(function (g) {
          if (g.dataset.series === button.dataset.series) { g.classList.toggle("hidden", !on); }
        });
      });
    });
    status.dataset.state = "ok";
    status.dataset.points = String(points);
    status.textContent = "chart: " + series.length + " series, " + points + " points, " +
                         rows + " iterations";
  } catch (error) { fail(error.message); }
})();
"""


def _e(value: Any) -> str:
    return escape(strip_controls(redact(str(value))), quote=True)


def _seconds(value: float | None) -> str:
    if value is None:
        return "unknown"
    return f"{value:.2f}s" if value < 10 else duration(value)


def _clip(text: str) -> str:
    text = redact(text)  # before the cut: a cut token is no longer recognisable
    return text if len(text) <= TEXT_LIMIT else (
        text[:TEXT_LIMIT] + f"\n[... {len(text) - TEXT_LIMIT} more characters in the files]")


def _fact(label: str, value: str, key: str, raw: object = None, wide: bool = False) -> str:
    data = "" if raw is None else f' data-value="{_e(raw)}"'
    cls = ' class="wide"' if wide else ""
    return f'<div{cls}><dt>{_e(label)}</dt><dd data-fact="{key}"{data}>{value}</dd></div>'


def _why(data: SessionData) -> str:
    verdict = data.verdict
    if verdict is None:
        return _e(data.state.error or "no verdict yet: the session is running or was "
                                      "interrupted")
    text = _e(verdict.reason)
    if verdict.source:
        text += f' <span class="muted">(decided by {_e(verdict.source)})</span>'
    breaker = BreakerState.of(data.state.plugin_state)
    if verdict.verdict == "stalled" and breaker.rule and breaker.reason not in verdict.reason:
        text += f"<br>breaker rule <code>{_e(breaker.rule)}</code>: {_e(breaker.reason)}"
    return text


def _header(data: SessionData) -> str:
    totals = data.totals()
    state = data.state
    verdict = state.verdict_name or state.status
    wall = float(totals["wall_s"] or 0)
    agent_s = float(totals["agent_s"] or 0)
    verify_s = float(totals["verification_s"] or 0)
    tokens = ("unknown" if totals["input_tokens"] is None and totals["output_tokens"] is None
              else f"{int(totals['input_tokens'] or 0):,} in / "
                   f"{int(totals['output_tokens'] or 0):,} out")
    cost = "unknown" if totals["cost_usd"] is None else f"${totals['cost_usd']:.2f}"
    facts = [
        _fact("iterations", f"{len(data.iterations)} of at most "
              f"{_e(state.max_iterations)}", "iterations", len(data.iterations)),
        _fact("wall time", _seconds(wall), "wall", round(wall, 3)),
        _fact("agent time", f"{_seconds(agent_s)} ({_pct(agent_s, wall)})", "agent",
              round(agent_s, 3)),
        _fact("verification time", f"{_seconds(verify_s)} ({_pct(verify_s, wall)})",
              "verification", round(verify_s, 3)),
        _fact("tokens", tokens, "tokens",
              None if totals["input_tokens"] is None and totals["output_tokens"] is None
              else f"{int(totals['input_tokens'] or 0)}/{int(totals['output_tokens'] or 0)}"),
        _fact("cost", cost, "cost", totals["cost_usd"]),
        _fact("agent", f"<code>{_e(state.agent or '?')}</code>", "agent-name", wide=True),
        _fact("until", f"<code>{_e(','.join(state.until))}</code>", "until", wide=True),
        _fact("started", _e(state.started_at or "?"), "started"),
    ]
    task = state.task or ""
    return (f'<h1>ralph-verify report <span class="muted">· session {_e(data.session)}</span>'
            f'</h1>\n<p><span class="verdict v-{_e(verdict)}" data-verdict="{_e(verdict)}">'
            f"{_e(verdict)}</span> {_why(data)}</p>\n"
            f'<dl class="facts">{"".join(facts)}</dl>\n'
            f"<details><summary>task</summary><pre>{_e(_clip(task))}</pre></details>")


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}% of wall" if whole > 0 else "-"


def _link(target: Path, base: Path, label: str) -> str:
    if not target.exists():
        return f'<span class="muted">{_e(label)}</span>'
    href = Path(os.path.relpath(target, base)).as_posix()
    return f'<a href="{_e(href)}">{_e(label)}</a>'


def _check_cell(spec: str, check: CheckSummary | None) -> str:
    if check is None:
        return '<td class="check muted">-</td>'
    status = check.status
    value = check.series_value
    metric = check.metric
    # No number: an error, or a check not judged this time (coverage of a partial run).
    shown = f"{value:g}" if value is not None else "error" if status == "error" else "none"
    metric_attr = "" if metric is None else f' data-metric="{_e(metric)}"'
    summary = " ".join(check.summary.split())
    return (f'<td class="check status-{_e(status)}" data-spec="{_e(spec)}" '
            f'data-status="{_e(status)}" data-value="{_e(shown)}"{metric_attr} '
            f'title="{_e(summary)}"><b>{_e(status)}</b><br>{_e(_short(summary))}</td>')


def _short(text: str, limit: int = 70) -> str:
    return cut(text, limit, "…")


def _files(iteration: IterationData) -> str:
    if not iteration.diffstat:
        return '<td class="files-cell muted" data-files="0">none</td>'
    items = []
    for stat in iteration.diffstat[:30]:
        numbers = ""
        if stat.added is not None or stat.removed is not None:
            numbers = (f' <span class="add">+{stat.added or 0}</span>'
                       f' <span class="del">&minus;{stat.removed or 0}</span>')
        items.append(f"<li><code>{_e(stat.path)}</code>{numbers}</li>")
    more = len(iteration.diffstat) - 30
    if more > 0:
        items.append(f'<li class="muted">and {more} more</li>')
    return (f'<td class="files-cell" data-files="{len(iteration.diffstat)}">'
            f'<ul class="files">{"".join(items)}</ul></td>')


def _agent_cell(agent: AgentRecord | None) -> str:
    if agent is None:
        return "<td>-</td>"
    if agent.error:
        return f'<td class="status-error">{_e(agent.error)}</td>'
    parts = [f"exit {_e(agent.exit_code)}", _seconds(agent.duration_s or 0.0)]
    if agent.timed_out:
        parts.append("timed out")
    if agent.input_tokens is not None or agent.output_tokens is not None:
        parts.append(f"{agent.input_tokens or 0:,}/{agent.output_tokens or 0:,} tokens")
    if agent.cost_usd is not None:
        parts.append(f"${agent.cost_usd:.2f}")
    return f'<td data-agent-s="{_e(agent.duration_s)}">{"<br>".join(parts)}</td>'


def _iterations_table(data: SessionData, base: Path) -> str:
    specs = data.specs()
    head = "".join(f"<th>{_e(spec)}</th>" for spec, _ in specs)
    rows = [f"<table id=\"iterations\"><thead><tr><th>#</th><th>time</th><th>agent</th>"
            f"<th>files changed</th>{head}<th>breaker</th><th>feedback sent</th>"
            "<th>files</th></tr></thead><tbody>"]
    if data.baseline is not None:
        by_spec = {c.spec: c for c in data.baseline_checks}
        cells = "".join(_check_cell(spec, by_spec.get(spec)) for spec, _ in specs)
        checks = _link(data.dir / "iterations" / "000" / "verification.json", base, "checks")
        rows.append(f'<tr class="baseline" data-iteration="0"><td>base</td>'
                    f'<td class="num">{_seconds(data.baseline.duration_s)}'
                    f"</td><td>-</td><td>-</td>{cells}<td>-</td><td>-</td><td>{checks}"
                    "</td></tr>")
    for iteration in data.iterations:
        by_spec = {c.spec: c for c in iteration.checks}
        cells = "".join(_check_cell(spec, by_spec.get(spec)) for spec, _ in specs)
        folder = data.dir / "iterations" / f"{iteration.number:03d}"
        links = "<br>".join([_link(folder / "prompt.md", base, "prompt"),
                             _link(folder / "agent.log", base, "agent log"),
                             _link(folder / "verification.json", base, "checks")])
        feedback = iteration.feedback_sent.strip()
        feedback_cell = (f"<details><summary>{len(feedback):,} chars</summary>"
                         f"<pre>{_e(_clip(feedback))}</pre></details>" if feedback else "-")
        record = iteration.record
        extra = "".join(f'<br><span class="muted">promised {_e(p)}</span>'
                        for p in record.promises)
        if record.verdict is not None:
            extra += f'<br><b>{_e(record.verdict.verdict)}</b>'
        rows.append(
            f'<tr class="iteration breaker-{_e(iteration.breaker)}" '
            f'data-iteration="{iteration.number}"><td>{iteration.number}{extra}</td>'
            f'<td class="num" data-duration-s="{_e(record.duration_s)}">'
            f'{_seconds(record.duration_s)}</td>'
            f"{_agent_cell(record.agent)}{_files(iteration)}{cells}"
            f'<td data-breaker="{_e(iteration.breaker)}">{_e(iteration.breaker)}</td>'
            f"<td>{feedback_cell}</td><td>{links}</td></tr>")
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _repeats(data: SessionData) -> str:
    repeats = data.repeats()
    if not repeats:
        return '<p class="muted">No failure persisted across two verifications in a row.</p>'
    rows = ['<table id="repeats"><thead><tr><th>fingerprint</th><th>check</th><th>failure</th>'
            "<th>seen in</th><th>longest run</th><th>at the end</th></tr></thead><tbody>"]
    for repeat in repeats:
        seen = ", ".join("base" if n == 0 else str(n) for n in repeat.seen)
        where = f"<br><code>{_e(repeat.location)}</code>" if repeat.location else ""
        rows.append(
            f'<tr class="repeat" data-fingerprint="{_e(repeat.fingerprint)}" '
            f'data-longest="{repeat.longest}"><td><code>{_e(repeat.fingerprint)}</code></td>'
            f"<td>{_e(repeat.check)}</td><td>{_e(cut(repeat.message, 300))}{where}</td>"
            f"<td>{seen}</td><td class=\"num\">{repeat.longest} verifications</td>"
            f"<td>{'still failing' if repeat.still_failing else 'fixed'}</td></tr>")
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _integrity(data: SessionData) -> str:
    findings = data.integrity_findings()
    specs = [name for _, name in data.specs()]
    if not findings:
        if "integrity" in specs:
            return '<p class="muted" id="integrity-none">No weakening found: no test deleted, ' \
                   "no new skip, suppression or loosened setting.</p>"
        return '<p class="muted" id="integrity-none">The integrity check did not run in this ' \
               "session.</p>"
    rows = ['<table id="integrity"><thead><tr><th>first seen</th><th>where</th><th>finding</th>'
            "</tr></thead><tbody>"]
    for number, failure in findings:
        rows.append(f'<tr class="finding"><td>{number}</td>'
                    f"<td><code>{_e(failure.location or '-')}</code></td>"
                    f"<td>{_e(failure.message)}</td></tr>")
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _safety(data: SessionData) -> str:
    """The guard's refusals by rule: what the agent tried that was stopped."""
    by_rule = data.safety.by_rule
    if not by_rule:
        return '<p class="muted" id="safety-none">The guard refused no tool call.</p>'
    rows = "".join(f'<tr class="refusal"><td><code>{_e(rule)}</code></td><td>{count}</td></tr>'
                   for rule, count in by_rule.items())
    return (f'<table id="safety"><thead><tr><th>rule</th><th>refused</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def render_report(data: SessionData, output: Path) -> str:
    """The whole page; links are relative to ``output``'s folder."""
    base = output.parent
    generated = now_iso()
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ralph-verify · {_e(data.session)} · {_e(data.state.verdict_name or "running")}</title>
<style>{CSS}</style>
</head>
<body>
<header>
{_header(data)}
</header>
<main>
{task_section(data.dir, data.state.task or "")}
<h2>Progress</h2>
{legend(data)}
{render_chart(data)}
<h2>Iterations</h2>
{_iterations_table(data, base)}
<h2>Failures that kept coming back</h2>
{_repeats(data)}
<h2>Integrity</h2>
{_integrity(data)}
<h2>Safety</h2>
{_safety(data)}
</main>
<footer>
<p class="muted">Written {generated} from {_e(data.dir)} (state.json, history.jsonl,
iterations/). <span id="report-status" data-state="loading">checking the chart…</span></p>
</footer>
<script>{SCRIPT}</script>
</body>
</html>
"""
