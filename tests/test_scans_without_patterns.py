"""Small text scans give the answers of the pattern (a glob, a regular expression) or the
module they stand for, or once stood for: each is checked here against it."""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ralph_verify.project.interpreter import _sees_system_packages, _site_packages
from ralph_verify.recorder.sources import record_files
from ralph_verify.redact import secret_values
from ralph_verify.state_files import now_iso, utc_now_iso
from ralph_verify.terminal_text import strip_controls

#: The pattern terminal_text compiled at import before.
CONTROLS = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


@pytest.mark.parametrize("text", [
    "", "plain", "two\nlines\tand a tab\n", "café ünïcode → ok\n", "\u200b zero width",
    "\x1b[31mred\x1b[0m", "over\rwritten", "crlf\r\nlines\r\n", "\x1b]0;title\x07after",
    "\x1bP+q\x1b\\dcs", "\x9b31m8-bit", "bell\x07", "del\x7f", "c1\x85next", "lone\x1b",
])
def test_strip_controls_removes_what_the_whole_pattern_removes(text: str) -> None:
    expected = text if not text else CONTROLS.sub("", text.replace("\r\n", "\n"))
    assert strip_controls(text) == expected


def test_text_without_controls_is_returned_as_it_is() -> None:
    text = "line one\nline two\twith a tab\n" * 50
    assert strip_controls(text) is text


def test_record_files_are_the_glob_in_name_order(tmp_path: Path) -> None:
    for name in ("record-20.jsonl", "record-3.jsonl", "record-.jsonl", "record-1.json",
                 "xrecord-2.jsonl", "record-7.jsonl.tmp", "deps-1.jsonl"):
        (tmp_path / name).write_text("")
    (tmp_path / "record-9.jsonl").mkdir()  # glob lists a folder too; so does the scan

    assert record_files(tmp_path) == sorted(tmp_path.glob("record-*.jsonl"))
    assert record_files(tmp_path / "missing") == []
    assert record_files(tmp_path / "record-3.jsonl") == []  # a file, not a folder


def test_site_packages_are_the_globs_of_a_virtual_environment(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    for folder in ("lib/python3.11/site-packages", "lib/python3.12/site-packages",
                   "lib/python3.11/other", "libexec/python3/site-packages",
                   "lib/pythonista", "include/python3.11/site-packages", "Lib/site-packages"):
        (venv / folder).mkdir(parents=True)
    (venv / "lib64").symlink_to("lib")  # as venv makes it on 64-bit Linux
    (venv / "lib/python3.11/site-packages.txt").write_text("")

    expected = sorted({*venv.glob("lib*/python*/site-packages"),
                       *venv.glob("Lib/site-packages")})
    assert _site_packages(venv) == expected
    assert venv / "lib64/python3.12/site-packages" in expected


@pytest.mark.parametrize("settings", [
    "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n",
    "home = /usr/bin\ninclude-system-site-packages = true\n",
    "Include-System-Site-Packages=TRUE\n",
    "  include-system-site-packages =  True  \n",
    "include-system-site-packages\n",
    "# include-system-site-packages = true\n",
    "other = include-system-site-packages = true\n",
    "",
])
def test_system_packages_setting_is_read_as_the_pattern_read_it(settings: str) -> None:
    pattern = re.compile(r"^\s*include-system-site-packages\s*=\s*true",
                         re.IGNORECASE | re.MULTILINE)
    assert _sees_system_packages(settings) is (pattern.search(settings) is not None)


def test_secret_names_are_those_the_pattern_named() -> None:
    pattern = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
    names = ["API_KEY", "github_token", "MySecret", "DB_PASSWD", "aws_credentials", "HOME",
             "PATH", "KEYBOARD", "monkey", "PASSWORD_FILE", "TOKENIZERS_PARALLELISM", "TERM"]
    env = {name: f"value-of-{name.lower()}-long-enough" for name in names}
    found = set(secret_values(env).values())
    assert found == {name for name in names if pattern.search(name)}


def test_a_verifications_start_time_is_datetimes_text() -> None:
    assert datetime.fromisoformat(utc_now_iso()).tzinfo == timezone.utc
    before = datetime.now(timezone.utc).replace(microsecond=0)
    stamp = now_iso()
    assert before <= datetime.fromisoformat(stamp) <= datetime.now(timezone.utc)
    assert stamp == datetime.fromisoformat(stamp).isoformat(timespec="seconds")


def test_a_timestamp_is_never_a_second_behind_the_clock_datetime_reads() -> None:
    """At the turn of a second the C library's coarse ``time(NULL)`` is still on the old one
    for a tick; a record stamped from it sorts before an event ``datetime.now`` saw earlier."""
    time.sleep(max(0.0, 1 - time.time() % 1 - 0.003))
    deadline = time.monotonic() + 0.02
    while time.monotonic() < deadline:
        before = datetime.now(timezone.utc).replace(microsecond=0)
        assert datetime.fromisoformat(now_iso()) >= before
