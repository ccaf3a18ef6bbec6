"""Read diff-cover's JSON report (``--format json:PATH``) into typed data.

Only the machine format is read, never diff-cover's text output. The percent
is computed from the line counts rather than taken from
``total_percent_covered``, which older diff-cover versions truncate to an
integer (87.5 -> 87); the result equals ``--total-percent-float``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph_verify import ToolError


@dataclass(frozen=True)
class FileStats:
    """One changed source file: its changed lines that no test ran."""

    path: str
    uncovered: tuple[int, ...]
    percent: float | None


@dataclass(frozen=True)
class DiffCoverReport:
    """Totals over the diff; ``measured_lines`` counts changed lines coverage knows about."""

    measured_lines: int
    uncovered_lines: int
    changed_lines: int
    files: tuple[FileStats, ...]

    @property
    def percent(self) -> float:
        """Percent of measured changed lines that are covered; 100 when none were measured."""
        if self.measured_lines == 0:
            return 100.0
        covered = self.measured_lines - self.uncovered_lines
        return round(covered / self.measured_lines * 100, 2)


class ReportError(ToolError):
    """diff-cover's report is missing or unreadable; the check becomes an ``error``."""


def _int(data: dict[str, Any], key: str, where: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ReportError(f"{where}: {key!r} is {value!r}, expected a count")
    return value


def _file_stats(path: str, stats: Any, where: str) -> FileStats:
    if not isinstance(stats, dict):
        raise ReportError(f"{where}: src_stats[{path!r}] is not an object")
    lines = stats.get("violation_lines")
    if not isinstance(lines, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in lines):
        raise ReportError(f"{where}: src_stats[{path!r}].violation_lines is {lines!r}, "
                          "expected a list of line numbers")
    percent = stats.get("percent_covered")
    return FileStats(path=path, uncovered=tuple(sorted(lines)),
                     percent=float(percent) if isinstance(percent, (int, float)) else None)


def parse_report(path: Path) -> DiffCoverReport:
    """The report at ``path``; missing, truncated or malformed raises :class:`ReportError`."""
    where = f"diff-cover JSON report {path.name}"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{where} was not written") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"{where} is unreadable: {exc}") from None
    if not isinstance(data, dict):
        raise ReportError(f"{where}: expected a JSON object, got {type(data).__name__}")
    src_stats = data.get("src_stats")
    if not isinstance(src_stats, dict):
        raise ReportError(f"{where}: 'src_stats' is missing or not an object")
    files = tuple(_file_stats(str(name), stats, where) for name, stats in src_stats.items())
    report = DiffCoverReport(
        measured_lines=_int(data, "total_num_lines", where),
        uncovered_lines=_int(data, "total_num_violations", where),
        changed_lines=_int(data, "num_changed_lines", where),
        files=files,
    )
    if report.uncovered_lines > report.measured_lines:
        raise ReportError(f"{where}: {report.uncovered_lines} uncovered lines of only "
                          f"{report.measured_lines} measured")
    return report


def line_ranges(lines: tuple[int, ...] | list[int]) -> str:
    """``[12, 13, 14, 15, 30]`` -> ``"12-15, 30"``."""
    parts: list[str] = []
    ordered = sorted(set(lines))
    start = previous = ordered[0] if ordered else 0
    for number in ordered[1:]:
        if number != previous + 1:
            parts.append(f"{start}-{previous}" if previous != start else str(start))
            start = number
        previous = number
    if ordered:
        parts.append(f"{start}-{previous}" if previous != start else str(start))
    return ", ".join(parts)
