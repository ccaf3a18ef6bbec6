"""Reading and validating ``[tool.ralph-verify]`` in ``pyproject.toml``.

The accepted keys are the settings plugins declared, plus one table per check
under ``checks``; both are validated with pydantic, and an error names the file,
the key and what was expected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.errors import ConfigError
from ralph_verify.project.caches import KEPT_DATA_COMMANDS
from ralph_verify.project.toml_files import parse_toml

if TYPE_CHECKING:
    from pydantic import ValidationError

    from ralph_verify.config.parser import Setting

TABLE = "[tool.ralph-verify]"

#: The commands that may use a kept table (:func:`load_table`): none of them decides a loop.
KEPT_TABLE_COMMANDS = KEPT_DATA_COMMANDS


def load_table(path: Path, *, kept: bool = False) -> dict[str, Any]:
    """The ``[tool.ralph-verify]`` table of ``path`` (empty if the file or table is absent).
    A ``pyproject.toml`` that is there but cannot be a file (a folder, a FIFO, a broken or
    looping link) is an error naming it, not a silent "no checks to run".

    ``kept``: the document kept from an earlier read of the same content may answer
    (:func:`~ralph_verify.project.toml_files.parse_toml`). Only for commands that decide no
    loop (:data:`KEPT_TABLE_COMMANDS`): the agent runs as the user and could write the user
    cache, and the checks that end a loop come from this table."""
    problem = unreadable(path)
    if problem == "absent":
        return {}
    if problem:
        raise ConfigError(f"{path}: cannot be read: {problem}; make it a TOML file or "
                          "remove it")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None
    try:
        data = parse_toml(path, raw, kept=kept)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: not UTF-8 text (byte {exc.start})") from None
    except ValueError as exc:  # the reader's TOMLDecodeError
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply for the TOML "
                          "reader") from None
    tool = data.get("tool", {})
    table = tool.get("ralph-verify", {}) if isinstance(tool, dict) else {}
    if isinstance(tool, dict) and "ralph-verify" not in tool:
        _near_miss(path, tool)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {TABLE} must be a table, not {type(table).__name__}")
    return table


def unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be read as a config file: ``"absent"``, a reason, or None."""
    import errno
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a broken symbolic link" if os.path.islink(path) else "absent"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link that loops"
        return exc.strerror or str(exc)
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if not stat.S_ISREG(mode):
        return "not a regular file (a FIFO, socket or device)"
    return None


def _near_miss(path: Path, tool: Mapping[str, Any]) -> None:
    """``[tool.ralph_verify]``, ``[tool.ralphverify]`` or ``[tool.ralph-verfy]``: a table
    meant for us under another name is an error with a did-you-mean, not ignored."""
    for name in tool:
        folded = str(name).lower().replace("_", "-").replace(".", "-")
        if folded != "ralph-verify" and not _close(folded):
            continue
        raise ConfigError(f"{path}: [tool.{name}] is not read: did you mean {TABLE}?")


def _close(name: str, to: str = "ralph-verify", cutoff: float = 0.8) -> bool:
    """``difflib.get_close_matches(name, [to], cutoff=cutoff)`` is not empty. The two upper
    bounds difflib itself tries first (the lengths, the letters in common) are taken here:
    most tables (``ruff``, ``mypy``, ``pytest``, ``coverage``) fail them, and difflib is not
    imported on each start for them."""
    size = len(name) + len(to)
    if 2.0 * min(len(name), len(to)) / size < cutoff:
        return False
    from collections import Counter

    if 2.0 * sum((Counter(name) & Counter(to)).values()) / size < cutoff:
        return False
    import difflib

    return bool(difflib.get_close_matches(name, [to], n=1, cutoff=cutoff))


def validate_settings(table: Mapping[str, Any], settings: Mapping[str, Setting],
                      path: Path) -> dict[str, Any]:
    """Validated setting values by ``dest`` (snake_case); only keys present in the file."""
    if not table:
        return {}  # nothing to validate: pydantic is not even imported
    plain = _plain_settings(table, settings)
    if plain is not None:
        return plain
    return _validate_with_pydantic(table, settings, path)


_NOT_PLAIN = object()


def _plain_settings(table: Mapping[str, Any], settings: Mapping[str, Setting]
                    ) -> dict[str, Any] | None:
    """What pydantic would answer for a table of plain values (a string, a boolean, a list
    of strings, a number within its bounds), without importing it (some 0.1 s of every
    start of a project with a ``[tool.ralph-verify]`` table); None for anything else (an
    error to describe, a lax conversion, a duration string, a setting with a model of its
    own), which pydantic then judges. ``tests/test_startup_lean.py`` holds both to the
    same answers."""
    by_key = {setting.key: setting for setting in settings.values()}
    by_dest = {setting.dest: setting for setting in settings.values()}
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key == "checks":
            if not (isinstance(value, dict)
                    and all(type(item) is dict for item in value.values())):
                return None
            continue
        setting = by_key.get(key) or by_dest.get(key)
        if setting is None or setting.dest in values or \
                by_dest.get(key, setting) is not by_key.get(key, setting):
            return None  # unknown, given twice (key and name), or ambiguous
        plain = _plain_value(setting.type, value)
        if plain is _NOT_PLAIN:
            return None
        values[setting.dest] = plain
    return values


def _plain_value(kind: Any, value: Any) -> Any:
    """``value`` as validated for a setting of type ``kind``, or :data:`_NOT_PLAIN`."""
    from typing import Annotated, get_args, get_origin

    from ralph_verify.config.parser import Bound

    if kind is str or kind is bool:
        return value if type(value) is kind else _NOT_PLAIN
    if kind == list[str] or kind == list[str] | str:
        if type(value) is str:
            return value if kind != list[str] else _NOT_PLAIN
        return list(value) if type(value) is list and all(
            type(item) is str for item in value) else _NOT_PLAIN
    if get_origin(kind) is not Annotated:
        return _NOT_PLAIN
    number, *extras = get_args(kind)
    if len(extras) != 1 or not isinstance(extras[0], Bound) or number not in (int, float):
        return _NOT_PLAIN
    bound: Bound = extras[0]
    if type(value) is int and (number is int or abs(value) <= 2**53):
        value = number(value)
    elif not (type(value) is float and number is float and math.isfinite(value)):
        return _NOT_PLAIN  # a string (a duration), a boolean, inf, nan: pydantic judges
    if (bound.gt is not None and not value > bound.gt) or \
            (bound.ge is not None and not value >= bound.ge):
        return _NOT_PLAIN
    return value


def _validate_with_pydantic(table: Mapping[str, Any], settings: Mapping[str, Setting],
                            path: Path) -> dict[str, Any]:
    from pydantic import ConfigDict, Field, ValidationError, create_model

    fields: dict[str, Any] = {
        setting.dest: (setting.value_type | None, Field(default=None, alias=setting.key))
        for setting in settings.values()
    }
    fields["checks"] = (dict[str, dict[str, Any]], Field(default_factory=dict))
    model = create_model(
        "RalphVerifySettings",
        __config__=ConfigDict(extra="forbid", populate_by_name=True, strict=False),
        **fields,
    )
    try:
        validated = model.model_validate(dict(table))
    except ValidationError as exc:
        known = sorted([*settings, "checks"])
        raise ConfigError(describe_validation_error(exc, path, TABLE, known)) from None
    present = validated.model_fields_set
    return {name: getattr(validated, name) for name in present if name != "checks"}


def describe_validation_error(exc: ValidationError, path: Path, where: str,
                              known: list[str]) -> str:
    """One line per problem: the file, the table, the key, what was expected."""
    lines = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        if error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):  # a dataclass's
            import difflib

            close = difflib.get_close_matches(str(error["loc"][0]), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            lines.append(f"{path}: {where}: unknown key {key!r}{hint}; "
                         f"known keys: {', '.join(known)}")
        else:
            message = error["msg"].lower().removeprefix("value error, ")  # our own words
            lines.append(f"{path}: {where} {key}: {message} (got {error.get('input')!r})")
    return "\n".join(lines)
