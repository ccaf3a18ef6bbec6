"""Which code is the project's own: its package(s) (``types`` checks them where mypy's
configuration names no ``files``), and what its CI hands to mypy (read by ``init``, so that
``check`` agrees with it). A few files parsed, nothing run."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ralph_verify.compat import tomllib

#: Top-level folders that are never the shipped package, even with an ``__init__.py``.
NOT_PACKAGES = frozenset({
    "test", "tests", "testing", "doc", "docs", "example", "examples", "benchmark",
    "benchmarks", "bench", "build", "dist", "venv", "env", "site-packages", "node_modules",
    "__pypackages__", "_build", "buck-out",
})
#: mypy options that take a value (the value is not a target); -p/-m values are targets.
_VALUE_OPTIONS = frozenset({
    "--config-file", "--python-version", "--platform", "--cache-dir", "--python-executable",
    "--exclude", "--junit-xml", "--html-report", "--txt-report", "--xml-report",
    "--linecount-report", "--any-exprs-report", "--cobertura-xml-report", "--lineprecision-report",
    "--linecoverage-report", "--custom-typeshed-dir", "--shadow-file", "--enable-error-code",
    "--disable-error-code", "--always-true", "--always-false", "--package-root", "-c",
    "--command", "--output", "-O", "--extra-checks", "--enable-incomplete-feature",
    "--junit-format", "--report-dir",
})
#: Options ``types`` sets itself, or that act outside the check: not copied from CI.
_NOT_COPIED = frozenset({
    "--output", "--cache-dir", "--python-executable", "--junit-xml", "--junit-format",
    "--install-types", "--non-interactive", "--pretty", "--color-output", "--error-summary",
    "--no-error-summary", "--show-error-context", "--soft-error-limit", "--config-file",
})
_TARGET_OPTIONS = frozenset({"-p", "--package", "-m", "--module"})
_MYPY_CALL = r"(?:^|[\s;&|(`'\"])(?:python3?\s+-m\s+)?mypy(?=\s|$)(?P<rest>[^\n;&|`)]*)"


def _is_package(path: Path) -> bool:
    return path.is_dir() and (path / "__init__.py").is_file()


def _parse_toml(data: bytes) -> dict[str, Any]:
    """The document, or ``{}`` for one that is not TOML (the configuration says so)."""
    try:
        return tomllib.loads(data.decode())
    except (ValueError, RecursionError):  # UnicodeDecodeError too
        return {}


def _table(data: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _named_in_pyproject(pyproject: dict[str, Any]) -> list[str]:
    """Top-level import names ``pyproject.toml`` says the project ships, in order of trust."""
    names: list[str] = []
    packages = _table(pyproject, "tool", "setuptools").get("packages")
    if isinstance(packages, list):
        names += [p.split(".")[0] for p in packages if isinstance(p, str)]
    hatch = _table(pyproject, "tool", "hatch", "build", "targets", "wheel").get("packages")
    if isinstance(hatch, list):
        names += [p.rstrip("/").split("/")[-1] for p in hatch if isinstance(p, str)]
    flit = _table(pyproject, "tool", "flit", "module").get("name")
    if isinstance(flit, str):
        names.append(flit.split(".")[0])
    project = _table(pyproject, "project").get("name")
    if isinstance(project, str):
        names.append(re.sub(r"[-_.]+", "_", project).lower())
    return list(dict.fromkeys(name for name in names if name))


def project_packages(root: Path) -> list[str]:
    """The project's own package(s) and modules, relative to ``root`` ([] if unknown): the src
    layout first, else what ``pyproject.toml`` names, else the top-level packages that are not
    tests, docs, examples, benchmarks or build output."""
    try:
        text = (root / "pyproject.toml").read_bytes()
    except OSError:
        text = b""
    # Parsed only when it can change the answer: a src layout without setuptools' ``where``
    # (most projects) is found without it.
    pyproject = _parse_toml(text) if b"where" in text else None
    where = _table(pyproject, "tool", "setuptools", "packages", "find").get("where")
    folders = [w for w in where if isinstance(w, str) and w not in (".", "")] \
        if isinstance(where, list) else []
    for folder in [*folders, "src"]:
        found = _packages_in(root, folder)
        if found:
            return found
    if pyproject is None:
        pyproject = _parse_toml(text) if text else {}
    found = []
    for name in _named_in_pyproject(pyproject):
        if (root / name).is_dir() and any((root / name).glob("*.py")):  # namespace ones too
            found.append(name)
        elif (root / f"{name}.py").is_file():
            found.append(f"{name}.py")
    if found:
        return found
    return sorted(p.name for p in root.iterdir() if _is_package(p)
                  and p.name.lower() not in NOT_PACKAGES and not p.name.startswith((".", "_")))


def _packages_in(root: Path, folder: str) -> list[str]:
    """Packages (namespace ones too) and modules directly in ``root/folder``."""
    base = root / folder
    if not base.is_dir() or base.resolve() == root.resolve():
        return []
    return [f"{folder.strip('/')}/{path.name}" for path in sorted(base.iterdir())
            if not path.name.startswith((".", "_")) and path.stem not in NOT_PACKAGES
            and _is_code(path)]


def _is_code(path: Path) -> bool:
    """A module, a package, or a folder with Python code somewhere below (a namespace)."""
    if path.is_file():
        return path.suffix in (".py", ".pyi")
    return path.is_dir() and not path.name.endswith(".egg-info") and (
        _is_package(path) or next(path.rglob("*.py"), None) is not None)


def mypy_arguments(command: str) -> tuple[list[str], list[str]] | None:
    """The targets (files, folders, ``-p``/``-m``) and other options of one ``mypy ...``
    command line, without placeholders (``{posargs}``, ``$VAR``) and the options of
    :data:`_NOT_COPIED`; None if it names no target (mypy then reads ``files``)."""
    try:
        import shlex

        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    targets: list[str] = []
    options: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        value = words[index + 1] if index + 1 < len(words) else None
        takes_value = (word in _TARGET_OPTIONS or word in _VALUE_OPTIONS) and value is not None
        index += 2 if takes_value else 1
        if any(mark in word for mark in ("{", "$", "*")) or (
                takes_value and any(mark in str(value) for mark in ("{", "$"))):
            continue
        if word in _TARGET_OPTIONS and value is not None:
            targets += [word, value]
        elif word.split("=")[0] in _NOT_COPIED or "report" in word or word == "-O":
            continue
        elif word.startswith("-"):
            options += [word, value] if takes_value and value is not None else [word]
        else:
            targets.append(word)
    return (targets, options) if targets else None


def _nox_session_lines(text: str) -> Iterable[str]:
    """``session.run("mypy", "src", ...)`` calls of a noxfile, as command lines."""
    import shlex

    for call in re.finditer(r"session\.run\(\s*(?P<args>[^)]*)\)", text):
        words = re.findall(r"""["']([^"']*)["']""", call["args"])
        if "mypy" in words:
            yield shlex.join(words[words.index("mypy"):])


def ci_mypy_targets(root: Path) -> tuple[list[str], list[str], str] | None:
    """The targets and options the project's CI gives mypy, and the file that says so; None
    if none found. Looks at tox.ini, noxfile.py and .github/workflows/*.yml, in that order,
    for a ``mypy`` command line with explicit targets that exist here."""
    sources: list[tuple[str, Iterable[str]]] = []
    for name in ("tox.ini", "noxfile.py"):
        path = root / name
        if path.is_file():
            text = _read(path)
            lines = _nox_session_lines(text) if name == "noxfile.py" else text.splitlines()
            sources.append((name, lines))
    workflows = root / ".github" / "workflows"
    if workflows.is_dir():
        for path in sorted([*workflows.glob("*.yml"), *workflows.glob("*.yaml")]):
            sources.append((path.relative_to(root).as_posix(), _read(path).splitlines()))
    for name, lines in sources:
        targets: dict[tuple[str, ...], None] = {}
        options: list[str] = []
        for line in lines:
            for call in re.compile(_MYPY_CALL).finditer(line):
                if "install" in line[:call.start()]:
                    continue  # pip install mypy ...: not a run
                found = mypy_arguments(call["rest"])
                pairs = _pairs(found[0]) if found else []
                # A CI line for another tree (a path that is not here) is not ours.
                if found and all(len(pair) == 2 or (root / pair[0]).exists() for pair in pairs):
                    # Several runs (tox: 'mypy typing_tests', 'mypy src/...'): one run of all.
                    targets.update(dict.fromkeys(pairs))
                    options = options or found[1]  # runs with other flags cannot be fused
        if targets:
            return [word for pair in targets for word in pair], options, name
    return None


def _pairs(targets: list[str]) -> list[tuple[str, ...]]:
    """``["-p", "x", "src"]`` as ``[("-p", "x"), ("src",)]``."""
    words = iter(targets)
    return [(word, next(words, "")) if word in _TARGET_OPTIONS else (word,) for word in words]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError:
        return ""
