"""The fleet's files: ``fleet.json`` (one record per loop), a merged JUnit file (one test case
per loop), ``report.html``, a GitHub job summary, and ``fleet merge`` of sharded runs.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ralph_verify.errors import UsageError
from ralph_verify.records.fleet import FleetDocument, LoopRecord, Totals, read_fleet, write_fleet
from ralph_verify.state_files import now_iso, write_text_atomic

FLEET_JSON = "fleet.json"
JUNIT_XML = "fleet-junit.xml"
REPORT_HTML = "report.html"
WIDTH, HEIGHT, PAD = 720, 240, 40


def write_junit(path: Path, document: FleetDocument) -> None:
    """One test case per loop: ``complete`` passes, other verdicts fail, errors and lost
    loops are errors, loops never run are skipped."""
    from xml.etree.ElementTree import Element, SubElement, indent, tostring

    loops = document.loops
    counts = Counter(_outcome(loop) for loop in loops)
    suite_attrs = {"name": f"ralph-verify fleet {document.fleet}",
                   "tests": str(len(loops)), "failures": str(counts["failure"]),
                   "errors": str(counts["error"]), "skipped": str(counts["skipped"]),
                   "time": f"{sum(loop.duration_s or 0 for loop in loops):.3f}"}
    root = Element("testsuites", name="ralph-verify fleet")
    suite = SubElement(root, "testsuite", suite_attrs)
    for loop in loops:
        case = SubElement(suite, "testcase", classname="fleet", name=loop.name,
                          time=f"{loop.duration_s or 0:.3f}")
        outcome = _outcome(loop)
        message = f"{loop.verdict}: {loop.reason}"
        if outcome in ("failure", "error"):
            SubElement(case, outcome, message=message, type=str(loop.verdict))
        elif outcome == "skipped":
            SubElement(case, "skipped", message=message)
        props = SubElement(case, "properties")
        for key, value in (("branch", loop.branch), ("iterations", loop.iterations),
                           ("cost_usd", loop.cost_usd), ("where", loop.where)):
            SubElement(props, "property", name=key, value=str(value))
    indent(root)
    write_text_atomic(path, tostring(root, encoding="unicode", xml_declaration=True) + "\n")


#: A loop's JUnit outcome by its verdict (a fleet with depends-on: by its task's status, done
#: only once merged); any other is a failure.
_BY_VERDICT = {"complete": "passed", "nothing-to-do": "passed", "error": "error",
               "lost": "error", "agent-error": "error", "not-run": "skipped", None: "skipped"}
_BY_TASK = {"done": "passed", "already": "passed", "skipped": "skipped", "not-run": "skipped"}


def _outcome(loop: LoopRecord) -> str:
    if loop.task_status is not None:
        return _BY_TASK.get(loop.task_status, "failure")
    return _BY_VERDICT.get(loop.verdict, "failure")


def github_summary(document: FleetDocument) -> str:
    """A Markdown job summary: totals, then one row per loop."""
    total = Totals.of(document.loops)
    verdicts = ", ".join(f"{count} {name}" for name, count in total.verdicts.items())
    lines = [f"## ralph-verify fleet {document.fleet}", "",
             f"{total.loops} loops: {verdicts or 'none'} · {total.iterations} iterations "
             f"· {total.cost_usd:.2f} USD", "",
             *([f"Stopped: {document.cancelled}", ""] if document.cancelled else []),
             "| loop | verdict | iterations | cost | duration | branch |",
             "| --- | --- | --- | --- | --- | --- |"]
    for loop in document.loops:
        reason = loop.reason.replace("|", "\\|").replace("\n", " ")[:120]
        lines.append(f"| {loop.name} | **{loop.verdict}** {reason} | {loop.iterations} | "
                     f"{loop.cost_usd:.2f} | {loop.duration_s or 0:.1f}s | `{loop.branch}` |")
    return "\n".join(lines) + "\n"


def write_outputs(out: Path, document: FleetDocument, github: bool = False,
                  junit: Path | None = None) -> None:
    """fleet.json, the JUnit file, report.html and (``--github``) the job summary."""
    write_fleet(out / FLEET_JSON, document)
    write_junit(junit or out / JUNIT_XML, document)
    write_text_atomic(out / REPORT_HTML, render_fleet_report(document, Totals.of(document.loops)))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if github and summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(github_summary(document))


def merge(folders: Sequence[Path], out: Path) -> FleetDocument:
    """One fleet from the ``--out`` folders of its shards: their loops, their loop files."""
    documents = [(folder, read_fleet(folder / FLEET_JSON)) for folder in folders]
    ids = {doc.fleet for _, doc in documents}
    if len(ids) > 1:
        raise UsageError(f"the folders hold different fleets ({', '.join(sorted(ids))}); give "
                         "every shard the same --id")
    loops: dict[str, LoopRecord] = {}
    for folder, document in documents:
        for loop in document.loops:
            name = loop.name
            if name in loops:
                raise UsageError(f"loop {name!r} is in two shards ({folder} and another); "
                                 "merge the --out folders of one fleet's distinct shards")
            loops[name] = loop
            source = folder / "loops" / name
            if source.is_dir() and source.resolve() != (out / "loops" / name).resolve():
                shutil.copytree(source, out / "loops" / name, dirs_exist_ok=True)
    first = documents[0][1]
    started = min(doc.started_at or "" for _, doc in documents)
    return FleetDocument(
        fleet=first.fleet, repository=first.repository, base=first.base,
        executor=first.executor, started_at=started, finished_at=now_iso(),
        cancelled=next((doc.cancelled for _, doc in documents if doc.cancelled), None),
        merged_from=[str(folder) for folder, _ in documents],
        loops=[loops[name] for name in sorted(loops)])


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
