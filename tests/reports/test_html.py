"""``.ralph/report.html`` after real runs: its numbers against history.jsonl, in headless Chromium.

Each example with a scripted agent (``examples/*/replay``) runs through the
real loop; the page's chart points and table cells are compared with
``history.jsonl``, then the page is loaded in Chromium: its own script must
report the chart consistent, the console must stay silent, and a screenshot
is left in the test's temporary folder.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from ralph_verify import hookimpl
from ralph_verify.agents import AgentRegistry, AgentRequest, AgentResult, AgentType
from ralph_verify.testing import Ralph
from tests.reports.browser import render
from tests.reports.page import Page, charted, history, parse

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: The single-task examples (a task list, examples/task-list, writes a report per task and is
#: run by tests/tasks/test_task_import.py).
REPLAYED = sorted(path.parent.name for path in EXAMPLES.glob("*/replay")
                  if not (path.parent / "prd.json").exists())


def _state(ralph: Ralph) -> dict[str, Any]:
    import json

    data = json.loads((ralph.path / ".ralph" / "state.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def check_page_against_history(page: Page, ralph_dir: Path) -> int:
    """Every number of the chart and the table equals history.jsonl; returns the points."""
    records = history(ralph_dir)
    numbers = [record["iteration"] for record in records]
    rows = page.find("tr", cls="iteration")
    assert [int(row.attrs["data-iteration"]) for row in rows] == numbers
    cells = page.find("td", cls="check")
    for record in records:
        for check in record["checks"]:
            (cell,) = [c for c in cells if c.attrs.get("data-spec") == check["spec"]
                       and _row_of(page, c) == record["iteration"]]
            assert cell.attrs["data-status"] == check["status"]
            assert cell.attrs["data-value"] == charted(check)
            if check["metric"] is not None:
                assert float(cell.attrs["data-metric"]) == check["metric"]
    (chart,) = page.find("svg", id="progress-chart")
    assert int(chart.attrs["data-iterations"]) == len(records)
    points = page.find("circle", cls="point")
    series = {p.attrs["data-series"] for p in points}
    assert series, "the chart draws no series"
    for spec in series:
        mine = [p for p in points if p.attrs["data-series"] == spec]
        assert [int(p.attrs["data-iteration"]) for p in mine] == numbers
        for point, record in zip(mine, records, strict=True):
            (check,) = [c for c in record["checks"] if c["spec"] == spec]
            assert point.attrs["data-value"] == charted(check), (spec, record["iteration"])
    # Every check that ever had a problem, and coverage, has its line.
    expected = {c["spec"] for r in records for c in r["checks"]
                if c["name"] == "coverage" or charted(c) not in ("0", "error")}
    assert expected <= series
    (iterations,) = page.find("dd", data_fact="iterations")
    assert int(iterations.attrs["data-value"]) == len(records)
    return len(points)


def _row_of(page: Page, cell: Any) -> int:
    index = next(i for i, element in enumerate(page.elements) if element is cell)
    row = next(e for e in reversed(page.elements[:index]) if e.tag == "tr")
    return int(row.attrs["data-iteration"])


def assert_self_contained(text: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text, re.IGNORECASE)
    assert "<link" not in text and "@import" not in text and "url(" not in text


def check_in_browser(page_path: Path, workdir: Path, points: int) -> Path:
    rendered = render(page_path, workdir)
    assert rendered.console == [], rendered.console
    dom = parse(rendered.dom)
    (status,) = dom.find(id="report-status")
    assert status.attrs["data-state"] == "ok", status.text
    assert int(status.attrs["data-points"]) == points
    data = rendered.screenshot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000
    return rendered.screenshot


def test_there_are_examples_to_report_on() -> None:
    assert "tdd-kata" in REPLAYED


@pytest.mark.slow
@pytest.mark.parametrize("example", REPLAYED)
def test_report_of_each_example_matches_its_history(ralph: Ralph, tmp_path: Path,
                                                    example: str) -> None:
    (ralph.path / "pyproject.toml").unlink()
    ralph.copy_example(EXAMPLES / example)
    ralph.git_init()
    result = ralph.run("run", "--agent", f"replay:{ralph.path / 'replay'}")
    assert result.ret == 0, result
    report = ralph.path / ".ralph" / "report.html"
    assert f"report: {report}" in result.out
    text = report.read_text(encoding="utf-8")
    assert_self_contained(text)
    page = parse(text)
    points = check_page_against_history(page, ralph.path / ".ralph")
    (verdict,) = page.find(data_verdict="complete")
    assert verdict.text == "complete"
    # Links to each iteration's prompt and agent log resolve next to the report.
    for link in page.find("a"):
        assert (report.parent / link.attrs["href"]).is_file(), link.attrs["href"]
    shot = check_in_browser(report, tmp_path, points)
    shutil.copy(shot, tmp_path / f"report-{example}.png")


class CostlyAgent:
    """An adapter that reports tokens and cost: it skips the failing test, then does nothing."""

    name = "costly"

    def run(self, request: AgentRequest) -> AgentResult:
        if request.iteration == 1:
            test = request.root / "tests" / "test_calc.py"
            test.write_text("import pytest\n\n" + test.read_text().replace(
                "def test_add", "@pytest.mark.skip\ndef test_add"))
        request.log_path.parent.mkdir(parents=True, exist_ok=True)
        request.log_path.write_text(f"iteration {request.iteration}\n")
        return AgentResult(exit_code=0, duration_s=0.25, text="working on it",
                           input_tokens=1000, output_tokens=250, cost_usd=0.05)


class CostlyPlugin:
    @hookimpl
    def ralph_register_agents(self, registry: AgentRegistry) -> None:
        registry.add(AgentType("costly", lambda arg, options: CostlyAgent(),
                               help="reports tokens and cost"))


@pytest.mark.slow
def test_a_stalled_session_shows_the_breaker_integrity_repeats_and_cost(
        ralph: Ralph, tmp_path: Path) -> None:
    ralph.makefile("calc.py", "def add(a, b):\n    return a - b\n")
    ralph.makefile("tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n"
                   "    assert add(2, 3) == 5\n\n\ndef test_ok():\n    assert True\n")
    ralph.makepyproject('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    ralph.git_init()
    result = ralph.run("run", "--agent", "costly", "--until", "tests", "--stall-no-change", "2",
                       "--max-iterations", "8", "make add() add", plugins=[CostlyPlugin()])
    assert result.ret == 11, result  # stalled
    ralph_dir = ralph.path / ".ralph"
    records = history(ralph_dir)
    breaker = [r["plugin_state"]["breaker"]["state"] for r in records]
    assert "half-open" in breaker and breaker[-1] == "open"

    page = parse((ralph_dir / "report.html").read_text(encoding="utf-8"))
    points = check_page_against_history(page, ralph_dir)
    assert len(page.find(data_verdict="stalled")) == 1
    # The chart shades the breaker's iterations, the table marks them.
    shaded = {int(r.attrs["data-iteration"]): r.attrs["class"] for r in page.find("rect")}
    expected = {r["iteration"]: f"breaker-{s}" for r, s in zip(records, breaker, strict=True)
                if s != "closed"}
    assert shaded == expected
    assert [c.attrs["data-breaker"] for c in page.find("td") if "data-breaker" in c.attrs] \
        == breaker
    # Tokens and cost add up over the iterations.
    n = len(records)
    (tokens,) = page.find("dd", data_fact="tokens")
    assert tokens.attrs["data-value"] == f"{1000 * n}/{250 * n}"
    (cost,) = page.find("dd", data_fact="cost")
    assert float(cost.attrs["data-value"]) == pytest.approx(0.05 * n)
    (agent_time,) = page.find("dd", data_fact="agent")
    assert float(agent_time.attrs["data-value"]) == pytest.approx(0.25 * n)
    # The skip the agent added is an integrity finding with its location.
    findings = page.find("tr", cls="finding")
    assert findings, "no integrity finding shown"
    text = (ralph_dir / "report.html").read_text(encoding="utf-8")
    assert "tests/test_calc.py" in text and "skip" in text
    # The integrity failure repeats in every iteration: it persisted.
    repeats = page.find("tr", cls="repeat")
    assert any(int(r.attrs["data-longest"]) == n for r in repeats)
    check_in_browser(ralph_dir / "report.html", tmp_path, points)


def test_report_command_renders_the_last_session_and_refuses_others(ralph: Ralph) -> None:
    result = ralph.run("report")
    assert result.ret == 2
    assert "no session to report on" in result.err
    ralph.makefile("calc.py", "x = 1\n")
    ralph.git_init()
    assert ralph.run("run", "--agent", 'cmd:"python -c pass"', "--until",
                     "files:calc.py", "go").ret == 0
    session = _state(ralph)["session"]
    result = ralph.run("report", "-o", "out/page.html")
    assert result.ret == 0, result
    page = parse((ralph.path / "out" / "page.html").read_text(encoding="utf-8"))
    assert page.find(data_verdict="complete")
    assert page.find("tr", cls="baseline") and not page.find("tr", cls="iteration")
    assert ralph.run("report", session).ret == 0
    other = ralph.run("report", "20000101-000000-beef")
    assert other.ret == 2
    assert f"only the last session's files are kept, and that is '{session}'" in other.err
