"""The fleet's files: ``fleet.json`` (one record per loop), a merged JUnit file (one test case
per loop), a GitHub job summary, and ``fleet merge`` of sharded runs into one of each.

A loop's record: ``name``, ``folder``, ``branch``, ``verdict``, ``reason``, ``iterations``,
``cost_usd``, ``duration_s`` (``run_s`` of it in ``ralph-verify run`` itself),
``started_at``/``finished_at``, ``where`` (host or worker),
``workdir`` (its worktree or clone), ``attempts``, ``commits``, ``report`` (its own HTML report,
relative to the fleet folder). ``totals`` counts the verdicts.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ralph_verify.errors import UsageError
from ralph_verify.fleet.html import render_fleet_report
from ralph_verify.state_files import now_iso, write_text_atomic

FLEET_JSON = "fleet.json"
JUNIT_XML = "fleet-junit.xml"
REPORT_HTML = "report.html"
#: Fields that differ between two runs of the same fleet however it was split.
RUN_FIELDS = frozenset({"started_at", "finished_at", "duration_s", "run_s", "where", "workdir",
                        "host",
                        "worker", "state", "executor"})


def totals(loops: Sequence[dict[str, Any]]) -> dict[str, Any]:
    counts = Counter(str(loop.get("verdict") or "pending") for loop in loops)
    return {"loops": len(loops), "verdicts": dict(sorted(counts.items())),
            "iterations": sum(int(loop.get("iterations") or 0) for loop in loops),
            "cost_usd": round(sum(float(loop.get("cost_usd") or 0) for loop in loops), 4)}


def write_fleet_json(path: Path, document: dict[str, Any]) -> None:
    document = {**document, "totals": totals(document.get("loops", []))}
    write_text_atomic(path, json.dumps(document, indent=2) + "\n")


def read_fleet_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror}); is it the --out folder "
                         "of a fleet run?") from None
    except ValueError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("loops"), list):
        raise UsageError(f"{path}: not a fleet.json (no list of loops)")
    return data


def write_junit(path: Path, document: dict[str, Any]) -> None:
    """One test case per loop: ``complete`` passes, other verdicts fail, errors and lost
    loops are errors, loops never run are skipped."""
    from xml.etree.ElementTree import Element, SubElement, indent, tostring

    loops = document.get("loops", [])
    counts = Counter(_outcome(loop) for loop in loops)
    suite_attrs = {"name": f"ralph-verify fleet {document.get('fleet', '')}",
                   "tests": str(len(loops)), "failures": str(counts["failure"]),
                   "errors": str(counts["error"]), "skipped": str(counts["skipped"]),
                   "time": f"{sum(float(loop.get('duration_s') or 0) for loop in loops):.3f}"}
    root = Element("testsuites", name="ralph-verify fleet")
    suite = SubElement(root, "testsuite", suite_attrs)
    for loop in loops:
        case = SubElement(suite, "testcase", classname="fleet", name=str(loop.get("name")),
                          time=f"{float(loop.get('duration_s') or 0):.3f}")
        outcome = _outcome(loop)
        message = f"{loop.get('verdict')}: {loop.get('reason', '')}"
        if outcome == "failure":
            SubElement(case, "failure", message=message, type=str(loop.get("verdict")))
        elif outcome == "error":
            SubElement(case, "error", message=message, type=str(loop.get("verdict")))
        elif outcome == "skipped":
            SubElement(case, "skipped", message=message)
        props = SubElement(case, "properties")
        for key in ("branch", "iterations", "cost_usd", "where"):
            SubElement(props, "property", name=key, value=str(loop.get(key, "")))
    indent(root)
    write_text_atomic(path, tostring(root, encoding="unicode", xml_declaration=True) + "\n")


def _outcome(loop: dict[str, Any]) -> str:
    task = loop.get("task_status")  # a fleet with depends-on: done only once merged
    if task is not None:
        return {"done": "passed", "already": "passed", "skipped": "skipped",
                "not-run": "skipped"}.get(str(task), "failure")
    verdict = loop.get("verdict")
    if verdict in ("complete", "nothing-to-do"):
        return "passed"
    if verdict in ("error", "lost", "agent-error"):
        return "error"
    if verdict in ("not-run", None):
        return "skipped"
    return "failure"


def github_summary(document: dict[str, Any]) -> str:
    """A Markdown job summary: totals, then one row per loop."""
    total = totals(document.get("loops", []))
    verdicts = ", ".join(f"{count} {name}" for name, count in total["verdicts"].items())
    lines = [f"## ralph-verify fleet {document.get('fleet', '')}", "",
             f"{total['loops']} loops: {verdicts or 'none'} · {total['iterations']} iterations "
             f"· {total['cost_usd']:.2f} USD", "",
             *([f"Stopped: {document['cancelled']}", ""] if document.get("cancelled") else []),
             "| loop | verdict | iterations | cost | duration | branch |",
             "| --- | --- | --- | --- | --- | --- |"]
    for loop in document.get("loops", []):
        reason = str(loop.get("reason", "")).replace("|", "\\|").replace("\n", " ")[:120]
        lines.append(f"| {loop.get('name')} | **{loop.get('verdict')}** {reason} | "
                     f"{loop.get('iterations', 0)} | {float(loop.get('cost_usd') or 0):.2f} | "
                     f"{float(loop.get('duration_s') or 0):.1f}s | `{loop.get('branch', '')}` |")
    return "\n".join(lines) + "\n"


def write_outputs(out: Path, document: dict[str, Any], github: bool = False,
                  junit: Path | None = None) -> None:
    """fleet.json, the JUnit file, report.html and (``--github``) the job summary."""
    import os


    write_fleet_json(out / FLEET_JSON, document)
    write_junit(junit or out / JUNIT_XML, document)
    total = totals(document.get("loops", []))
    write_text_atomic(out / REPORT_HTML, render_fleet_report(document, total))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if github and summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(github_summary(document))


def merge(folders: Sequence[Path], out: Path) -> dict[str, Any]:
    """One fleet from the ``--out`` folders of its shards: their loops, their loop files."""
    documents = [(folder, read_fleet_json(folder / FLEET_JSON)) for folder in folders]
    ids = {str(doc.get("fleet")) for _, doc in documents}
    if len(ids) > 1:
        raise UsageError(f"the folders hold different fleets ({', '.join(sorted(ids))}); give "
                         "every shard the same --id")
    loops: dict[str, dict[str, Any]] = {}
    for folder, document in documents:
        for loop in document["loops"]:
            name = str(loop.get("name"))
            if name in loops:
                raise UsageError(f"loop {name!r} is in two shards ({folder} and another); "
                                 "merge the --out folders of one fleet's distinct shards")
            loops[name] = loop
            source = folder / "loops" / name
            if source.is_dir() and source.resolve() != (out / "loops" / name).resolve():
                shutil.copytree(source, out / "loops" / name, dirs_exist_ok=True)
    first = documents[0][1]
    started = min(str(doc.get("started_at") or "") for _, doc in documents)
    return {"fleet": first.get("fleet"), "repository": first.get("repository"),
            "base": first.get("base"), "executor": first.get("executor"), "shard": None,
            "started_at": started, "finished_at": now_iso(),
            "cancelled": next((doc["cancelled"] for _, doc in documents
                               if doc.get("cancelled")), None),
            "merged_from": [str(folder) for folder, _ in documents],
            "loops": [loops[name] for name in sorted(loops)]}
