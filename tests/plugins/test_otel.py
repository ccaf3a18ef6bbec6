"""``otel``: one span per run, iteration, agent call and check, with the real OpenTelemetry SDK.

ralph-verify runs in a child process whose tracer provider exports to the SDK's in-memory
exporter; the spans are dumped as JSON when it ends. The agent (a ``cmd:`` script) records
the ``TRACEPARENT`` it was given, which must point at its own ``invoke_agent`` span.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

HARNESS = """\
import json, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

from ralph_verify.cli import main

code = main(sys.argv[2:])
spans = [{"name": s.name, "trace": format(s.context.trace_id, "032x"),
          "id": format(s.context.span_id, "016x"),
          "parent": format(s.parent.span_id, "016x") if s.parent else None,
          "attributes": dict(s.attributes), "status": s.status.status_code.name}
         for s in exporter.get_finished_spans()]
with open(sys.argv[1], "w") as out:
    json.dump(spans, out)
sys.exit(code)
"""


def traced(ralph: Ralph, *args: str, env: dict[str, str] | None = None
           ) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    harness = ralph.path.parent / "harness.py"
    harness.write_text(HARNESS)
    dump = ralph.path.parent / "spans.json"
    proc = subprocess.run([sys.executable, str(harness), str(dump), *args], cwd=ralph.path,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})
    return proc, json.loads(dump.read_text())


def test_a_run_is_one_trace_of_iterations_agent_calls_and_checks(ralph: Ralph) -> None:
    seen = ralph.path / "traceparent"  # in the project: the sandbox makes the rest read-only
    body = textwrap.dedent(f"""\
        pathlib.Path({str(seen)!r}).write_text(os.environ.get("TRACEPARENT", ""))
        if N == 2:
            pathlib.Path("done.txt").write_text("x")
        """)
    proc, spans = traced(ralph, "run", "--agent", agent(ralph, body), "--until",
                         "files:done.txt", "--model", "test-model", "-p", "no:breaker",
                         "write done.txt")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    by_name = {s["name"]: s for s in spans}
    root = by_name["ralph-verify run"]
    assert root["parent"] is None
    assert root["attributes"]["ralph.verdict"] == "complete"
    assert root["attributes"]["ralph.iterations"] == 2
    assert {s["trace"] for s in spans} == {root["trace"]}
    iterations = [s for s in spans if s["name"].startswith("iteration ")]
    assert [s["name"] for s in iterations] == ["iteration 1", "iteration 2"]
    assert all(s["parent"] == root["id"] for s in iterations)
    agents = [s for s in spans if s["name"] == "invoke_agent cmd"]
    assert len(agents) == 2
    assert [a["parent"] for a in agents] == [i["id"] for i in iterations]
    assert agents[0]["attributes"]["gen_ai.operation.name"] == "invoke_agent"
    assert agents[0]["attributes"]["gen_ai.agent.name"] == "cmd"
    assert agents[0]["attributes"]["gen_ai.request.model"] == "test-model"
    checks = [s for s in spans if s["name"] == "check files:done.txt"]
    # the baseline's check hangs from the run, each iteration's from its iteration
    assert [c["parent"] for c in checks] == [root["id"], *(i["id"] for i in iterations)]
    assert [c["attributes"]["ralph.check.status"] for c in checks] == [
        "failed", "failed", "passed"]
    # The agent's TRACEPARENT names the trace and its own invoke_agent span (last run).
    version, trace_id, parent_id, _flags = seen.read_text().split("-")
    assert (version, trace_id, parent_id) == ("00", root["trace"], agents[1]["id"])


def test_standard_variables_set_up_an_exporter_when_nobody_did(ralph: Ralph) -> None:
    ralph.makefile("done.txt", "x")
    proc = subprocess.run([sys.executable, "-m", "ralph_verify", "check", "--until",
                           "files:done.txt"], cwd=ralph.path, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "OTEL_TRACES_EXPORTER": "console"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '"name": "check files:done.txt"' in proc.stdout
    assert '"name": "ralph-verify check"' in proc.stdout


def test_without_opentelemetry_nothing_changes(ralph: Ralph, tmp_path: Path) -> None:
    # A module named opentelemetry that is not a package hides the real one.
    (tmp_path / "opentelemetry.py").write_text("")
    ralph.makefile("done.txt", "x")
    proc = subprocess.run([sys.executable, "-m", "ralph_verify", "check", "--until",
                           "files:done.txt"], cwd=ralph.path, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(tmp_path),
                                            "OTEL_TRACES_EXPORTER": "console"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "check files:done.txt" not in proc.stdout.replace("PASSED", "")
