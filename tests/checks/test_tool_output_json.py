"""A tool's JSON list read item by item (``iter_json_array``): an output that fits in one read
is parsed at once, a longer one piece by piece, and both give the same items and the same
errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_verify.checks.tool_output import iter_json_array

TEXTS = [
    "[]",
    "  \n[ ]\n",
    '[{"code": "F401", "message": "x"}, {"code": null}]',
    '[1, 2.5, -3e2, true, false, null, "s", [1, [2]], {"a": {"b": []}}]\n\n',
    '[{"message": "caf\\u00e9 \\"quoted\\""}, 12345678901234567890]',
    "[" + ", ".join(json.dumps({"filename": f"/p/f{i}.py", "row": i}) for i in range(300)) + "]",
    "",
    "   ",
    "{}",
    '{"a": [1]}',
    "[1, 2",
    "[1, 2,]",
    "[1 2]",
    "[1, 2] trailing",
    "[1, 2][3]",
    '[{"a": 1}, {"b": ]',
    "[" * 5000 + "]" * 5000,
]


def read(path: Path, chunk_chars: int) -> tuple[list[object], str | None]:
    items: list[object] = []
    try:
        for item in iter_json_array(path, "tool", "its format", chunk_chars=chunk_chars):
            items.append(item)
    except ValueError as exc:
        return items, str(exc)
    return items, None


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_one_parse_and_the_stream_give_the_same_items_and_errors(text: str,
                                                                  tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text(text, encoding="utf-8")
    at_once = read(path, 1 << 20)
    assert at_once == read(path, 7)
    assert at_once == read(path, len(text) or 1)  # exactly one chunk: read piece by piece
    if at_once[1] is None:
        assert at_once[0] == json.loads(text)


def test_the_deadline_is_asked_between_items_in_one_parse_too(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text(json.dumps(list(range(10))), encoding="utf-8")
    seen: list[int] = []

    def check() -> None:
        if len(seen) == 3:
            raise TimeoutError("deadline")
        seen.append(1)

    with pytest.raises(TimeoutError):
        for _ in iter_json_array(path, "tool", "its format", check=check):
            pass
    assert len(seen) == 3

