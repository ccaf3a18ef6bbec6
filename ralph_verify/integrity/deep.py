"""The third round of integrity rules, taken and compared in one place.

The baseline keeps, per Python file, a hash and what the rules found in it (stand-ins,
cannot-fail checks, the tests' input/expected pairs, literal branches and tables), and
each tool's effective configuration. A later picture re-reads only the files whose hash
changed and re-resolves the configuration only when a config file, a conftest or a
relevant environment variable changed, so a verification parses what the agent touched
and nothing else. :func:`compare` turns what is new into failures with a file, a line, the
rule and what to do instead.
"""

from __future__ import annotations

import ast
import hashlib
import os
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ralph_verify.checks.api import Failure
from ralph_verify.integrity import (
    assertions,
    effective,
    effective_tools,
    parsed,
    special_cases,
    standins,
)
from ralph_verify.integrity.gaming import allowed, is_source
from ralph_verify.integrity.sources import conftest_settings, is_test_file
from ralph_verify.records.integrity import DEEP, DeepFile, DeepPicture, Picture

VERSION = DEEP
#: Tool -> the checks whose verdict it decides.
GATES = {"coverage": ("coverage",), "pytest": ("tests", "coverage"), "mypy": ("types",),
         "ruff": ("lint",)}
#: What each rule's failures are called in the check's summary.
WHAT = {"narrowed-setting": "narrowed tool setting", "stand-in": "stand-in for project code",
        "special-case": "special-cased test input",
        **dict.fromkeys(("constant-true", "or-constant", "self-compare"),
                        "assertion that cannot fail"),
        "swallowed-assert": "swallowed assertion", "checks-removed": "test without checks",
        "dead-assert": "assertion never run"}
_COMPARE = {"coverage": effective.compare_coverage, "pytest": effective.compare_pytest,
            "mypy": effective_tools.compare_mypy, "ruff": effective_tools.compare_ruff}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _summarise(rel: str, text: str, sha: str, own: set[str], plugins: set[str],
               kept: DeepFile | None = None) -> DeepFile:
    """What the rules find in one file (the parts that apply to its kind)."""
    out = DeepFile(sha)
    tree = parsed.tree(text)
    if tree is None:
        return out
    lines = text.splitlines()
    name = rel.rsplit("/", 1)[-1]
    if standins.is_infra_side(rel) or rel in plugins:
        found = standins.scan(text, own, whole=name == "conftest.py" or rel in plugins)
        out.standins = [list(f) for f in found]
    if is_test_file(rel):
        out.imports = standins.project_imports(tree, own)
        out.asserts = assertions.summarise(tree, lines, kept.asserts if kept else None)
    elif is_source(rel):
        out.candidates = [[k, f, list(i), o, line, s] for k, f, i, o, line, s
                          in special_cases.candidates(tree, lines)]
        out.defines = sorted({n.name for n in ast.walk(tree)
                              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))})
    return out


def _config_state(root: Path, files: list[str]) -> dict[str, str]:
    state = {}
    for name in effective.CONFIG_FILES:
        path = root / name
        if path.is_file():
            data = path.read_bytes()
            if name == "pyproject.toml":
                state.update(effective.pyproject_state(data))
            else:
                state[name] = _sha(data)
    # conftests, and the files that decide which files ruff lints (.gitignore, a sub-folder's
    # ruff.toml or pyproject.toml): the set a tool checks may grow, never shrink.
    state.update({rel: _sha((root / rel).read_bytes()) for rel in files
                  if ("/" in rel and rel.rsplit("/", 1)[-1] in _NESTED)
                  or rel.rsplit("/", 1)[-1] in (".gitignore", ".ignore", "conftest.py")
                  if (root / rel).is_file()})
    state["#stubs"] = _sha("\n".join(f for f in files if f.endswith(".pyi")).encode())
    state.update({f"${k}": os.environ.get(k, "") for k in effective.ENV})
    return state


#: The config files (and ``$VARIABLES``) each tool reads: it is resolved again only when
#: one of them changed.
_INPUTS = {"coverage": (".coveragerc", ".coveragerc.toml", "setup.cfg", "tox.ini",
                        "pyproject.toml#coverage", "$COVERAGE_RCFILE"),
           "pytest": ("pytest.ini", ".pytest.ini", "pyproject.toml#pytest", "tox.ini",
                      "setup.cfg", "$PYTEST_ADDOPTS", "conftest.py"),
           "mypy": ("mypy.ini", ".mypy.ini", "pyproject.toml#mypy", "setup.cfg",
                    "$MYPY_CONFIG_FILE", "#stubs"),
           "ruff": ("ruff.toml", ".ruff.toml", "pyproject.toml#ruff", "pyproject.toml",
                    ".gitignore", ".ignore")}
#: Settings files read in sub-folders too (by ruff, and pytest's conftests).
_NESTED = ("ruff.toml", ".ruff.toml", "pyproject.toml", "conftest.py")


def _inputs(tool: str, state: dict[str, str]) -> dict[str, str]:
    names = _INPUTS[tool]
    return {k: v for k, v in state.items() if k in names or k.rsplit("/", 1)[-1] in names}


def _pytest(root: Path, files: list[str]) -> dict[str, Any]:
    conftests = {}
    for rel in files:
        if rel.rsplit("/", 1)[-1] == "conftest.py":
            try:
                text = (root / rel).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            conftests[rel] = [v for key, values, _ in conftest_settings(text)
                              if key.startswith("collect_ignore") for v in values]
    return effective.pytest_config(root, conftests)


#: Each tool's reader of its effective settings, from the project and its files.
_RESOLVE: dict[str, Callable[[Path, list[str]], dict[str, Any]]] = {
    "coverage": lambda root, _: effective.coverage_config(root), "pytest": _pytest,
    "mypy": effective_tools.mypy_config, "ruff": lambda root, _: effective_tools.ruff_config(root)}


def resolve(root: Path, files: list[str], state: dict[str, str],
            old: DeepPicture) -> dict[str, dict[str, Any]]:
    """Each tool's effective settings; ``old``'s where none of the tool's inputs changed."""
    found: dict[str, dict[str, Any]] = {}
    for tool in _INPUTS:
        inputs = _inputs(tool, state)
        if tool in old.effective and _inputs(tool, old.config) == inputs:
            found[tool] = old.effective[tool]
            continue
        if tool == "ruff":  # which files it lints depends on the files there are
            inputs = {**inputs, "files": _sha("\n".join(files).encode())}
        key = (tool, str(root), tuple(sorted(inputs.items())))
        if key not in _RESOLVED:  # resolved once per configuration in a loop's process
            try:
                _RESOLVED[key] = _RESOLVE[tool](root, files)
            except Exception as exc:  # a tool's reader must never break the check
                _RESOLVED[key] = {"error": f"{type(exc).__name__}: {exc}"}
        found[tool] = _RESOLVED[key]
    return found


#: Effective settings by tool, project and the state of the tool's inputs.
_RESOLVED: dict[tuple[str, str, tuple[tuple[str, str], ...]], dict[str, Any]] = {}


def take(root: Path, files: list[str], previous: Picture | None = None,
         plugins: Sequence[str] = ()) -> DeepPicture:
    """This round's part of the picture; ``previous``: the baseline, its part reused for
    every file whose hash did not change."""
    old = previous.deep if previous is not None and previous.deep is not None \
        else DeepPicture()
    old_files = old.files if old.version == VERSION else {}
    own = standins.project_names(f for f in files if is_source(f))
    own_key = ",".join(sorted(own))
    plugin_set = set(plugins)

    def summarise(rel: str, text: str, sha: str, kept: DeepFile | None) -> DeepFile:
        return DeepFile(sha) if rel.endswith(".pyi") \
            else _summarise(rel, text, sha, own, plugin_set, kept)

    found = parsed.by_content(root, files, old_files, summarise,
                              (own_key, tuple(sorted(plugin_set))))
    config = _config_state(root, files)
    return DeepPicture(VERSION, found, config, resolve(root, files, config, old))


def gated_tools(gate: set[str]) -> set[str]:
    """The tools whose settings decide a check of ``gate`` (all of them when the gate has
    no tool check: ``check --until integrity``)."""
    tools = {tool for tool, checks in GATES.items() if gate & set(checks)}
    return tools or set(GATES)


def _failure(path: str, line: int, rule: str, message: str, detail: str = "") -> Failure:
    return Failure(message=f"{path}:{line}: {message} ({rule})", location=f"{path}:{line}",
                   path=path, line=line, detail=detail, code=rule)


def compare(before: Picture, after: Picture, root: Path, gate: set[str],
            allow: Sequence[str] = ()) -> tuple[list[Failure], set[str]]:
    """Failures new since ``before``, and the tools whose effective settings did not narrow
    (their per-file ``weakened-setting`` findings are moves, not narrowings: see
    :func:`superseded`; where a tool did narrow, the per-file findings stay, more precise)."""
    then, now = before.deep, after.deep
    if then is None or now is None or then.version != VERSION or now.version != VERSION:
        return [], set()
    failures: list[Failure] = []
    old_files, new_files = then.files, now.files
    imported = {k: v for entry in new_files.values() for k, v in entry.imports.items()}
    pairs = {(f, tuple(a), e) for entry in new_files.values()
             for test in entry.asserts.values() for f, a, e in test[0][3]}
    for rel, entry in sorted(new_files.items()):
        was = old_files.get(rel) or DeepFile("")
        if was.sha == entry.sha:
            continue
        failures += _standins(rel, was, entry, allow, imported)
        failures += _asserts(rel, was, entry, allow)
        failures += _special(rel, was, entry, pairs, allow)
    tools = gated_tools(gate)
    judged: set[str] = set()
    old_eff, new_eff = then.effective, now.effective
    files = sorted(new_files)
    for tool in sorted(tools):
        a, b = old_eff.get(tool) or {}, new_eff.get(tool) or {}
        if "error" in a or "error" in b or not a or not b:
            continue
        if _inputs(tool, then.config) == _inputs(tool, now.config):
            judged.add(tool)
            continue
        extra: dict[str, Any] = {"renamed": _renamed(old_files, new_files)} \
            if tool == "ruff" else {}
        if tool in ("ruff", "mypy"):
            extra["changed"] = _changed(_inputs(tool, then.config), _inputs(tool, now.config))
        narrowings = _COMPARE[tool](root, a, b, files, **extra)
        if not narrowings:
            judged.add(tool)  # its per-file findings are a setting moved or made stricter
        for kind, path, line, message in narrowings:
            if kind != effective_tools.QUIET and not allowed(path, "narrowed-setting", tool,
                                                             allow):
                failures.append(_failure(
                    path, line, "narrowed-setting", f"{message} (allow it on purpose with "
                    f'allow = ["{path}:{tool}"] in [tool.ralph-verify.checks.integrity])'))
    return failures, judged


def _changed(then: dict[str, str], now: dict[str, str]) -> list[str]:
    """The settings files that differ between two states of a tool's inputs."""
    return sorted({key.split("#", 1)[0] for key in set(then) | set(now)
                   if then.get(key) != now.get(key) and key[0] not in "#$"})


def _renamed(old: dict[str, DeepFile], new: dict[str, DeepFile]) -> dict[str, str]:
    """New path -> old path, for files that moved with the same content."""
    by_sha = {entry.sha: rel for rel, entry in old.items()}
    return {rel: by_sha[entry.sha] for rel, entry in new.items()
            if rel not in old and entry.sha in by_sha}


def _standins(rel: str, was: DeepFile, entry: DeepFile,
              allow: Sequence[str], imported: dict[str, str]) -> list[Failure]:
    old = Counter((t, s) for t, _, s, _ in was.standins)
    out = []
    for raw, line, source, scope in entry.standins:
        if old[(raw, source)] > 0:
            old[(raw, source)] -= 1
            continue
        target = standins.resolve(raw, imported)
        if target is None:
            continue
        if allowed(rel, "stand-in", target, allow) or allowed(rel, "stand-in", scope, allow):
            continue
        out.append(_failure(rel, line, "stand-in", f"`{source}` in {scope} {standins.WHY}; "
                            f"it replaces {target} (allow it on purpose with allow = "
                            f'["{rel}:{target}"])', source))
    return out


def _asserts(rel: str, was: DeepFile, entry: DeepFile,
             allow: Sequence[str]) -> list[Failure]:
    out = []
    old_tests = was.asserts
    for test, (head, *found) in sorted(entry.asserts.items()):
        checks, line = head[0], head[1]
        before = old_tests.get(test)
        old = Counter((r, s) for r, _, s in (before[1:] if before else []))
        shown = f"{rel}::{test.replace('.', '::')}"
        if before is not None and before[0][0] > 0 and checks == 0 \
                and not allowed(rel, "checks-removed", test, allow):
            out.append(_failure(rel, line, "checks-removed",
                                f"test {shown} {assertions.WHY['checks-removed']}"))
        for rule, at, source in found:
            if old[(rule, source)] > 0:
                old[(rule, source)] -= 1
                continue
            if not allowed(rel, rule, test, allow):
                out.append(_failure(rel, at, rule, f"`{source}` in test {shown} "
                                    f"{assertions.WHY[rule]}", source))
    return out


def _special(rel: str, was: DeepFile, entry: DeepFile,
             pairs: set[special_cases.Pair], allow: Sequence[str]) -> list[Failure]:
    def key(c: list[Any]) -> tuple[Any, ...]:  # a table's line may move with the code
        return c[0], c[1].split("@")[0] if c[0] == "table" else c[1], tuple(c[2]), c[3]

    defined = set(entry.defines)  # a table answers for this module's functions
    table_pairs = {p for p in pairs if p[0] in defined and not special_cases.trivial([p[2]])}

    old = Counter(key(c) for c in was.candidates)
    hits: dict[int, tuple[str, list[str]]] = {}
    answers: Counter[str] = Counter()  # table -> its entries that are a test's answer
    for kind, func, inputs, out, line, source in entry.candidates:
        if kind == "table" and special_cases.matches(
                (kind, func, tuple(inputs), out, line, source), table_pairs):
            answers[func] += 1
    for cand in entry.candidates:
        if old[key(cand)] > 0:
            old[key(cand)] -= 1
            continue
        kind, func, inputs, out, line, source = cand
        if kind == "table" and 2 * answers[func] < int(func.split("@")[0]):
            continue  # mostly data the tests never ask for
        matched = special_cases.matches((kind, func, tuple(inputs), out, line, source),
                                        table_pairs if kind == "table" else pairs)
        if matched and not allowed(rel, "special-case", func or source, allow):
            hits.setdefault(line, (source, []))[1].extend(special_cases.show(p)
                                                          for p in matched)
    return [_failure(rel, line, "special-case", f"`{source}` " + special_cases.WHY.format(
        pairs="; ".join(sorted(set(shown)))) + f" (allow it on purpose with allow = "
        f'["{rel}:special-case"])', source) for line, (source, shown) in sorted(hits.items())]


_MODELLED_PYTEST = ("pytest.addopts", "pytest.testpaths", "pytest.python_files",
                    "pytest.norecursedirs", "conftest.collect_ignore")


def superseded(failure: Failure, judged: set[str], gate: set[str]) -> bool:
    """Whether a per-file ``weakened-setting`` failure is judged by its effect instead: its
    tool's effective settings were compared (or the tool decides no check of this run)."""
    key = failure.detail  # the setting's key: ``tool.section.name``
    if failure.code != "weakened-setting" or not key.startswith(
            ("coverage.", "ruff.", "mypy.", "pytest.", "conftest.")):
        return False
    tool = "pytest" if key.startswith("conftest.") else key.split(".", 1)[0]
    if tool not in gated_tools(gate):
        return True
    if tool not in judged:
        return False
    if tool == "pytest":
        return key.startswith(_MODELLED_PYTEST)
    if tool == "mypy" and "overrides[" in key:
        return key.rsplit(".", 1)[-1] in ("ignore_errors", "follow_imports",
                                          "disable_error_code")
    return True


def merge(existing: list[Failure], found: list[Failure], judged: set[str],
          gate: set[str]) -> list[Failure]:
    """``existing`` minus what the effect supersedes, plus ``found`` minus the places the
    older rules already report."""
    kept = [f for f in existing if not superseded(f, judged, gate)]
    places = {(f.path, f.line) for f in kept if f.path and f.line}
    return kept + [f for f in found if (f.path, f.line) not in places]
