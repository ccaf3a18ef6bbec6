"""``fleet/report.html``: one self-contained page for a whole fleet.

Verdict totals, a chart of loops completed over time (inline SVG, no external file), and a
table of loops, each linking to the loop's own report (``loops/NAME/report.html``). Rows and
points carry ``data-*`` attributes with the raw values; a small script checks that the chart's
points agree with the table and says so in ``#report-status`` (``data-state="ok"``), which a
headless browser can read.
"""

from __future__ import annotations

import html
from datetime import datetime

from ralph_verify.records.fleet import FleetDocument, LoopRecord, Totals

WIDTH, HEIGHT, PAD = 720, 240, 40

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em}.muted{color:#777}
table{border-collapse:collapse;width:100%;margin-top:1em}
th,td{border-bottom:1px solid #ddd;padding:.35em .5em;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{font-weight:600;padding:.1em .45em;border-radius:.3em;background:#eee}
.v-complete,.v-nothing-to-do{background:#d5f5dd;color:#135c27}
.v-error,.v-lost,.v-agent-error{background:#fbd9d9;color:#8a1212}
.v-cancelled,.v-not-run{background:#eee;color:#555}
.v-stalled,.v-max-iterations,.v-budget,.v-blocked{background:#fdf0c8;color:#6b4e00}
.totals span{margin-right:1em}svg{background:#fafafa;border:1px solid #eee}
code{font-size:.92em;white-space:nowrap}td:first-child{white-space:nowrap}
"""

SCRIPT = """
(function(){
  var status=document.getElementById('report-status');
  var rows=document.querySelectorAll('tr[data-loop]');
  var points=document.querySelectorAll('circle[data-loop]');
  var done=0;rows.forEach(function(r){if(r.dataset.finishedS!=='')done++;});
  var ok=points.length===done;
  points.forEach(function(p,i){
    var row=document.querySelector('tr[data-loop="'+CSS.escape(p.dataset.loop)+'"]');
    if(!row||row.dataset.finishedS!==p.dataset.finishedS||+p.dataset.count!==i+1)ok=false;
  });
  var total=+document.getElementById('totals').dataset.loops;
  if(total!==rows.length)ok=false;
  status.dataset.state=ok?'ok':'mismatch';
  status.textContent=ok?'chart consistent with the table':'chart and table disagree';
})();
"""


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


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


def _chart(offsets: dict[str, float], total: int) -> str:
    ordered = sorted(offsets.items(), key=lambda item: (item[1], item[0]))
    span = max([value for _, value in ordered] + [1.0])
    scale_x = (WIDTH - 2 * PAD) / span
    scale_y = (HEIGHT - 2 * PAD) / max(total, 1)
    parts = [f'<svg id="chart" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
             'role="img" aria-label="loops finished over time">',
             f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" '
             'stroke="#999"/>',
             f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#999"/>',
             f'<text x="{PAD}" y="{PAD - 10}" font-size="12">{total} loops</text>',
             f'<text x="{WIDTH - PAD}" y="{HEIGHT - 10}" font-size="12" text-anchor="end">'
             f'{span:.0f} s</text>']
    path = [f"M{PAD},{HEIGHT - PAD}"]
    for count, (name, offset) in enumerate(ordered, start=1):
        x, y = PAD + offset * scale_x, HEIGHT - PAD - count * scale_y
        path.append(f"H{x:.1f}V{y:.1f}")
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#2a7ae2" '
                     f'data-loop="{_e(name)}" data-finished-s="{offset:.3f}" '
                     f'data-count="{count}"><title>{_e(name)}: {offset:.1f} s</title></circle>')
    parts.insert(5, f'<path d="{"".join(path)}" fill="none" stroke="#2a7ae2" '
                    'stroke-width="2"/>')
    parts.append("</svg>")
    return "\n".join(parts)


def _task(loop: LoopRecord) -> str:
    """A fleet with depends-on: the task's status after the merge queue, and why."""
    if loop.task_status is None:
        return ""
    return (f'<br>task: <span class="verdict" data-task-status="{_e(loop.task_status)}">'
            f'{_e(loop.task_status)}</span> {_e(loop.task_reason)}')


def _row(loop: LoopRecord, offsets: dict[str, float]) -> str:
    name = loop.name
    verdict = loop.verdict or loop.status or "pending"
    link = f'<a href="{_e(loop.report)}">{_e(name)}</a>' if loop.report else _e(name)
    finished = offsets.get(name)
    where = " ".join(part for part in (loop.where, loop.workdir) if part)
    return (f'<tr data-loop="{_e(name)}" data-verdict="{_e(verdict)}" '
            f'data-finished-s="{"" if finished is None else f"{finished:.3f}"}">'
            f"<td>{link}<br><span class=muted>{_e(loop.folder)}</span></td>"
            f'<td><span class="verdict v-{_e(verdict)}">{_e(verdict)}</span> '
            f'{_e(loop.reason)}{_task(loop)}</td>'
            f'<td class="num" data-iterations="{loop.iterations}">{loop.iterations}</td>'
            f'<td class="num" data-cost="{loop.cost_usd}">{loop.cost_usd:.2f}</td>'
            f'<td class="num" data-duration-s="{_e(loop.duration_s)}">'
            f'{loop.duration_s or 0:.1f} s</td>'
            f'<td><code>{_e(loop.branch)}</code></td>'
            f'<td class="muted">{_e(where)}</td></tr>')


def render_fleet_report(document: FleetDocument, total: Totals) -> str:
    """The page for ``fleet.json``'s ``document``, whose verdict ``total`` the caller counted."""
    offsets = _finish_offsets(document)
    verdicts = "".join(f'<span class="verdict v-{_e(name)}" data-verdict-total="{_e(name)}" '
                       f'data-count="{count}">{count} {_e(name)}</span>'
                       for name, count in total.verdicts.items())
    rows = "\n".join(_row(loop, offsets) for loop in document.loops)
    cancelled = (f"<p><strong>Cancelled:</strong> {_e(document.cancelled)}</p>"
                 if document.cancelled else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ralph-verify fleet {_e(document.fleet)}</title><style>{STYLE}</style></head>
<body>
<h1>ralph-verify fleet <code>{_e(document.fleet)}</code></h1>
<p class="muted">{_e(document.repository)} at <code>{_e(document.base[:12])}
</code> · executor {_e(document.executor)} · started {_e(document.started_at)}</p>
{cancelled}
<p class="totals" id="totals" data-loops="{total.loops}"
 data-iterations="{total.iterations}" data-cost="{total.cost_usd}">
<strong>{total.loops} loops</strong> {verdicts}
<span>{total.iterations} iterations</span><span>{total.cost_usd:.2f} USD</span></p>
<h2>Loops finished over time</h2>
{_chart(offsets, total.loops)}
<h2>Loops</h2>
<table><thead><tr><th>loop</th><th>verdict</th><th>iterations</th><th>cost (USD)</th>
<th>duration</th><th>branch</th><th>where it ran</th></tr></thead>
<tbody>
{rows}
</tbody></table>
<p class="muted">fleet.json and fleet-junit.xml beside this page hold the same records.
<span id="report-status" data-state="loading">checking the chart…</span></p>
<script>{SCRIPT}</script>
</body></html>
"""
