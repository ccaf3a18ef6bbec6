"""``--shard i/n`` and ``fleet merge``: a fleet split in two and merged is the same fleet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ralph_verify.testing import Ralph
from tests.fleet.kata import agent, git, make_monorepo

#: Fields that differ between two runs of the same fleet however it was split.
RUN_FIELDS = frozenset({"started_at", "finished_at", "duration_s", "run_s", "where", "workdir",
                        "host", "worker", "state", "executor"})


def _comparable(out: Path) -> dict[str, Any]:
    """fleet.json without what differs between two runs of one fleet (timings, places)."""
    document = json.loads((out / "fleet.json").read_text())
    loops = [{key: value for key, value in loop.items() if key not in RUN_FIELDS}
             for loop in document["loops"]]
    return {"fleet": document["fleet"], "base": document["base"], "loops": loops,
            "totals": document["totals"]}


def test_two_shards_merged_equal_one_unsharded_run(ralph: Ralph, tmp_path: Path) -> None:
    make_monorepo(ralph.path, ["a", "b", "c", "d"])
    fix = agent(tmp_path)
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    common = ["--matrix", "packages/*", "--agent", fix, "--until", "tests", "-p", str(prompt),
              "--id", "ci-7"]
    # The same repository, cloned: the unsharded run gets its own branches.
    whole = tmp_path / "whole"
    git(tmp_path, "clone", "-q", str(ralph.path), str(whole))
    whole_run = Ralph(whole).run("fleet", *common, "-j", "2", "--out", "fleet-all")
    assert whole_run.ret == 0, whole_run
    for index in (1, 2):
        shard = ralph.run("fleet", *common, "--shard", f"{index}/2", "-j", "1",
                          "--out", f"fleet-{index}")
        assert shard.ret == 0, shard
        names = [loop["name"] for loop in
                 json.loads((ralph.path / f"fleet-{index}/fleet.json").read_text())["loops"]]
        assert len(names) == 2  # each shard ran half of the fleet
    merged = ralph.run("fleet", "merge", "fleet-1", "fleet-2", "--out", "fleet")
    assert merged.ret == 0, merged
    merged.stdout.fnmatch_lines(["fleet ci-7: merged 2 folder(s), 4 loops into *"])
    assert _comparable(ralph.path / "fleet") == _comparable(whole / "fleet-all")
    for name in "abcd":
        assert (ralph.path / f"fleet/loops/packages-{name}/report.html").is_file()
    assert (ralph.path / "fleet/report.html").is_file()
    assert (ralph.path / "fleet/fleet-junit.xml").read_text().count("<testcase") == 4


def test_merge_refuses_folders_of_different_fleets(ralph: Ralph) -> None:
    for name, fleet_id in (("one", "x"), ("two", "y")):
        ralph.makefile(f"{name}/fleet.json", json.dumps({"fleet": fleet_id, "loops": []}))
    result = ralph.run("fleet", "merge", "one", "two", "--out", "fleet")
    assert result.ret == 2
    assert "different fleets (x, y)" in result.err and "same --id" in result.err
    result = ralph.run("fleet", "merge", "nowhere")
    assert result.ret == 2 and "nowhere/fleet.json: cannot be read" in result.err
