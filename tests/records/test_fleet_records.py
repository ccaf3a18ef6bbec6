"""``fleet.json`` as typed records: a file written before the records were typed (fields
missing, ``null`` where a value was never set) still reads, in ``fleet status`` and ``fleet
merge``, and a file that is not a fleet's is one clear line."""

from __future__ import annotations

import json

from ralph_verify.testing import Ralph

#: A fleet.json as older versions wrote it: loops with only some fields, nulls, totals.
OLD = {
    "fleet": "old-1", "repository": "/src/repo", "base": "abc123", "executor": "local",
    "shard": None, "started_at": "2024-05-01T10:00:00+00:00", "finished_at": None,
    "cancelled": None,
    "loops": [
        {"name": "a", "folder": "packages/a", "branch": "ralph/fleet-old-1/a",
         "status": "finished", "verdict": "complete", "reason": "all checks passed",
         "iterations": 2, "cost_usd": 0.5, "duration_s": 12.5, "where": "box",
         "finished_at": "2024-05-01T10:01:00+00:00", "report": "loops/a/report.html"},
        {"name": "b", "status": "finished", "verdict": "stalled", "iterations": None,
         "cost_usd": None, "duration_s": None, "task_status": None, "an_old_key": 1},
        {"name": "c", "status": "pending", "branch": "ralph/fleet-old-1/c"},
    ],
    "totals": {"loops": 3, "verdicts": {"complete": 1, "pending": 1, "stalled": 1}},
}


def test_an_old_fleet_json_reads_in_status_and_merge(ralph: Ralph) -> None:
    ralph.makefile("old/fleet.json", json.dumps(OLD))
    result = ralph.run("fleet", "status", "--out", "old")
    assert result.ret == 0, result
    head, *rows = result.out.splitlines()
    assert head.startswith("fleet old-1 · 3 loops · 0 running · 1 complete, 1 pending")
    assert rows[0].split()[:4] == ["a", "complete", "it", "2"]
    assert rows[1].split()[:6] == ["b", "stalled", "it", "0", "$", "0.00"]
    assert rows[2].split()[:2] == ["c", "pending"]

    result = ralph.run("fleet", "merge", "old", "--out", "merged")
    assert result.ret == 1, result  # two loops of three did not complete
    merged = json.loads((ralph.path / "merged/fleet.json").read_text())
    assert [loop["name"] for loop in merged["loops"]] == ["a", "b", "c"]
    assert merged["loops"][1]["iterations"] == 0 and merged["loops"][1]["reason"] == ""
    assert merged["totals"] == {"loops": 3, "verdicts": {"complete": 1, "pending": 1,
                                                         "stalled": 1},
                                "iterations": 2, "cost_usd": 0.5}
    assert 'data-loop="a"' in (ralph.path / "merged/report.html").read_text()


def test_a_file_that_is_not_a_fleets_is_one_line(ralph: Ralph) -> None:
    ralph.makefile("bad/fleet.json", json.dumps({"fleet": "x", "loops": [{"verdict": 1}]}))
    result = ralph.run("fleet", "status", "--out", "bad")
    assert result.ret == 2
    assert "fleet.json is corrupted (loops[0] has no name)" in result.err
    assert "Traceback" not in result.err
