"""Reading and validating ``[tool.ralph-verify]`` in ``pyproject.toml``: the settings plugins
declared and one table per check, each error naming the file, the key and what was expected."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.errors import ConfigError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from ralph_verify.config.parser import Setting

TABLE = "[tool.ralph-verify]"


def load_table(path: Path) -> dict[str, Any]:
    """The ``[tool.ralph-verify]`` table of ``path`` (empty if the file or table is absent); a
    ``pyproject.toml`` that cannot be read or is not TOML is an error naming it."""
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
    from ralph_verify.compat import tomllib

    try:
        data = tomllib.loads(raw.decode())
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
    """A table meant for us under another name (``[tool.ralph_verify]``) is an error."""
    import difflib

    for name in tool:
        folded = str(name).lower().replace("_", "-").replace(".", "-")
        if difflib.get_close_matches(folded, ["ralph-verify"], n=1, cutoff=0.8):
            raise ConfigError(f"{path}: [tool.{name}] is not read: did you mean {TABLE}?")


def validate_settings(table: Mapping[str, Any], settings: Mapping[str, Setting],
                      path: Path) -> dict[str, Any]:
    """Validated setting values by ``dest`` (snake_case); only keys present in the file."""
    if not table:
        return {}  # nothing to validate: pydantic is not even imported
    from pydantic import ConfigDict, Field, ValidationError, create_model

    fields: dict[str, Any] = {
        setting.dest: (setting.type | None, Field(default=None, alias=setting.key))
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
