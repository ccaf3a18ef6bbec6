"""Settings compared by what they say, not by where they are written.

A setting may move (``[tool.ruff] select`` to ``[tool.ruff.lint]``, ``.coveragerc`` to
``pyproject.toml``): settings are keyed by tool and name, lists are the union over their
files. A lint configuration stricter overall (a newly selected family partly ignored, a
code still selected by a prefix) is not loosened."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ralph_verify.integrity.settings import kind_of
from ralph_verify.records.integrity import Gate, Setting

#: Files whose single values win over the others' (read first by their tools).
PRECEDENCE = (".coveragerc", "mypy.ini", ".mypy.ini", "pytest.ini", "ruff.toml",
              ".ruff.toml", "pyproject.toml", "setup.cfg", "tox.ini")
_SELECT = ("ruff.select", "ruff.extend_select")
_IGNORES = ("ruff.ignore", "ruff.extend_ignore", "ruff.per_file_ignores",
            "ruff.extend_per_file_ignores")


def normal_key(key: str) -> str:
    return key.replace("ruff.lint.", "ruff.").replace("-", "_")


def _rank(setting: Setting) -> int:
    name = setting.file.rsplit("/", 1)[-1]
    return PRECEDENCE.index(name) if name in PRECEDENCE else len(PRECEDENCE)


def merged(settings: Iterable[Setting]) -> dict[str, Setting]:
    """Normal key (conftest settings keep their file) -> one setting (with the key as the
    file read first writes it)."""
    groups: dict[str, list[Setting]] = {}
    for setting in settings:
        key = normal_key(setting.key)
        ident = f"{setting.file}|{key}" if key.startswith("conftest.") else key
        groups.setdefault(ident, []).append(setting)
    out = {}
    for ident, group in groups.items():
        group.sort(key=_rank)
        first = group[0]
        if isinstance(first.value, list) and kind_of(first.key) in ("grow", "shrink"):
            items: list[Any] = []
            lines: dict[str, int] = {}
            for setting in group:
                items += [v for v in setting.value if v not in items]
                lines = {**setting.item_lines, **lines}
            first = replace(first, value=items, item_lines=lines)
        out[ident] = first
    return out


def _codes(settings: dict[str, Setting], keys: tuple[str, ...]) -> set[str]:
    return {str(item) for key in keys if key in settings for item in settings[key].value}


def _covered(code: str, prefixes: set[str]) -> bool:
    return "ALL" in prefixes or any(code.startswith(p) for p in prefixes if p)


def stricter_overall(old: dict[str, Setting], new: dict[str, Setting]) -> dict[str, Setting]:
    """``new`` with the ruff changes that do not loosen anything taken out: ignores of newly
    selected families dropped, selected codes a prefix still covers kept."""
    then, now = _codes(old, _SELECT), _codes(new, _SELECT)
    added = {code for code in now if not _covered(code, then)}
    out = dict(new)
    for key in _IGNORES:
        if key in out and isinstance(out[key].value, list):
            kept = [item for item in out[key].value
                    if not _covered(str(item).rsplit(": ", 1)[-1], added)
                    or item in (old[key].value if key in old else [])]
            out[key] = replace(out[key], value=kept)
    for key in _SELECT:
        if key in old and key in out and isinstance(out[key].value, list):
            still = [item for item in old[key].value
                     if item not in out[key].value and _covered(str(item), now)]
            out[key] = replace(out[key], value=[*out[key].value, *still])
    return out


#: The check each tool's settings decide; pytest's (and conftest's) decide ``tests``.
DECIDES = {"ruff": "lint", "mypy": "types", "coverage": "coverage"}
_STRICT = ("--strict-markers", "--strict-config")


def outside_gate(key: str, gate: Gate | None) -> bool:
    """Whether a setting's tool decides none of this session's checks (a ruff ``ignore``
    when ``lint`` is not in ``--until``): loosening it hides nothing from this run."""
    checks = gate.checks if gate is not None else None
    check = DECIDES.get(key.split(".", 1)[0])
    return checks is not None and check is not None and check not in checks


def pytest_strict(settings: dict[str, Setting]) -> dict[str, Setting]:
    """``[tool.pytest] strict = true`` (pytest 9) stands for ``--strict-markers``,
    ``--strict-config`` and ``xfail_strict``: the old spellings count as still there."""
    strict = settings.get("pytest.strict")
    if strict is None or strict.value is not True:
        return settings
    out = dict(settings)
    opts = out.get("pytest.addopts")
    if opts is not None:
        out["pytest.addopts"] = replace(opts, value=[*opts.value, *_STRICT])
    else:
        out["pytest.addopts"] = replace(strict, key="pytest.addopts", value=list(_STRICT))
    out["pytest.xfail_strict"] = replace(strict, key="pytest.xfail_strict", value=True)
    return out


def marker_names(expression: str) -> set[str]:
    """The markers a ``-m`` expression names (``not slow and not stress`` -> slow, stress)."""
    return set(re.findall(r"[A-Za-z_]\w*", expression)) - {"and", "or", "not"}
