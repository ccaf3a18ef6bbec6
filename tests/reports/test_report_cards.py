"""What a person reads in ``report.html``: coverage not judged is no number, the start time
reads as one, a sentence said once, no debug text, and an agent's text is never markup."""

from __future__ import annotations

import re
from pathlib import Path

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent
from tests.recorder.test_affected import MARK, _project
from tests.reports.browser import render
from tests.reports.page import parse

#: Iteration 1 breaks shout: only the affected tests run and coverage is not judged; iteration
#: 2 fixes everything and the full suite decides.
FIX_IN_TWO = MARK + """\
if N == 1:
    pathlib.Path("text.py").write_text(pathlib.Path("text.py").read_text()
                                       .replace("s.upper()", "s.title() + '!'"))
if N == 2:
    pathlib.Path("text.py").write_text(pathlib.Path("text.py").read_text()
                                       .replace("s.title() + '!'", "s.upper()"))
    pathlib.Path("calc.py").write_text(pathlib.Path("calc.py").read_text()
                                       .replace("a - b", "a + b"))
"""


def test_the_report_says_what_it_knows_and_nothing_else(ralph: Ralph, tmp_path: Path) -> None:
    _project(ralph)
    task = "fix it <script>alert('task')</script>"
    result = ralph.run("run", "--agent", agent(ralph, FIX_IN_TWO), "--until",
                       "tests,coverage>=50", task)
    assert result.ret == 0, result
    report = ralph.path / ".ralph" / "report.html"
    text = report.read_text(encoding="utf-8")
    page = parse(text)
    # Coverage not judged at iteration 1: a hollow mark under the axis, not a point at 100%.
    grid = [float(line.attrs["y1"]) for line in page.find("line", cls="grid")]
    (unjudged,) = page.find("circle", cls="unjudged")
    assert unjudged.attrs["data-series"] == "coverage>=50"
    assert unjudged.attrs["data-iteration"] == "1" and unjudged.attrs["data-value"] == "none"
    assert float(unjudged.attrs["cy"]) > max(grid)  # below 0%, off the scale
    # The start time as one: no ISO 'T' nor microseconds, on a line of its own.
    (started,) = page.find("dd", data_fact="started")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", started.text), started.text
    assert "nowrap" in started.classes
    # The integrity check's sentence once, where it changed, not in every row.
    integrity = [cell for cell in page.find("td", cls="check")
                 if cell.attrs.get("data-spec") == "integrity"]
    shown = [cell.text for cell in integrity]
    assert len(integrity) == 3 and len(set(c.attrs["title"] for c in integrity[1:])) == 1
    assert shown[1].startswith("nothing weakened") and shown[2] == "", shown
    # No debug text: the status element carries data only.
    (status,) = page.find(id="report-status")
    assert status.text == ""
    assert "chart:" not in text
    # The task is quoted, escaped by the template engine.
    assert "<script>alert('task')</script>" not in text
    assert "fix it &lt;script&gt;alert(&#39;task&#39;)&lt;/script&gt;" in text
    rendered = render(report, tmp_path)
    assert rendered.console == [], rendered.console
    (checked,) = parse(rendered.dom).find(id="report-status")
    assert checked.attrs["data-state"] == "ok" and checked.text == ""
