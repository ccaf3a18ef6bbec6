"""The report chart's count axis fits the counts: one failure is an axis of 0-1, not 0-4
(issue 25). A real session, its real report page."""

from __future__ import annotations

import re

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent


def _left_axis(page: str) -> list[str]:
    svg = page[page.index('<svg id="progress-chart"'):]
    svg = svg[:svg.index("</svg>")]
    return re.findall(r'<text class="axis" [^>]*text-anchor="end">([^<]*)</text>', svg)


def test_one_failure_is_an_axis_of_zero_to_one(ralph: Ralph) -> None:
    ralph.makefile("PROMPT.md", "write done.txt\n")
    ralph.git_init()
    second_time = agent(ralph, "if N == 2:\n    pathlib.Path('done.txt').write_text('ok')\n")
    result = ralph.run("run", "--agent", second_time, "--until", "files:done.txt",
                       "--no-integrity")
    assert result.ret == 0, result
    page = (ralph.path / ".ralph" / "report.html").read_text(encoding="utf-8")
    assert _left_axis(page) == ["0", "1"]
