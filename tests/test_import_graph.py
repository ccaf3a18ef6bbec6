"""The core never imports a built-in: plugins, agent adapters and reporters plug into it.

Read from the source with ``ast`` (every ``import``, also those inside functions and under
``TYPE_CHECKING``), so a lazy import cannot hide a dependency.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ralph_verify"
#: The agent adapters (``--agent NAME``); ``agents/__init__.py`` is the API they implement.
ADAPTERS = frozenset({"aider", "amp", "claude", "codex", "copilot", "gemini", "opencode",
                      "qwen", "cmd", "replay", "cli"})
#: The public face may name what built-ins export for plugin authors (loaded lazily).
PUBLIC_FACE = "__init__.py"
GRAMMAR = ("config/until.py", "checks/fingerprint.py")


def imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every absolute import in ``path`` (``from A import B``: ``A``,
    and ``A.B`` when B may be a module)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def core_modules() -> list[Path]:
    """The package's own modules outside plugins/, agents/, reports/ and fleet/ (the fleet is
    a command built on the core, with plugins of its own); agenthook/, integrity/ and the
    specs (hookspec/) are core."""
    return sorted([*PACKAGE.glob("*.py"), *PACKAGE.glob("config/*.py"),
                   *PACKAGE.glob("agenthook/*.py"), *PACKAGE.glob("integrity/**/*.py"),
                   *PACKAGE.glob("hookspec/*.py")])


def is_builtin(module: str) -> bool:
    parts = module.split(".")
    if parts[0] != "ralph_verify" or len(parts) < 2:
        return False
    return (parts[1] in ("plugins", "reports")
            or (parts[1] == "agents" and len(parts) > 2 and parts[2] in ADAPTERS))


def test_no_core_module_imports_a_plugin_an_adapter_or_a_reporter() -> None:
    wrong = [f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
             for path in core_modules() if path.name != PUBLIC_FACE
             for line, module in imports(path) if is_builtin(module)]
    assert not wrong, "core modules import built-ins (use a hook or a stash key):\n" + \
        "\n".join(wrong)


def test_the_grammar_needs_only_the_standard_library() -> None:
    allowed = {"__future__", "ralph_verify.errors"}
    for name in GRAMMAR:
        path = PACKAGE / name
        wrong = [f"{name}:{line}: {module}" for line, module in imports(path)
                 if module.split(".")[0] not in sys.stdlib_module_names
                 and not any(module == a or module.startswith(f"{a}.") for a in allowed)]
        assert not wrong, "the grammar imports more than the standard library:\n" + \
            "\n".join(wrong)


def test_the_walk_sees_imports_inside_functions(tmp_path: Path) -> None:
    """The walker itself: a lazy import of a plugin is found (this test can fail)."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from ralph_verify.plugins.terminal import x\n"
                      "    import ralph_verify.agents.claude\n")
    found = [m for _, m in imports(module) if is_builtin(m)]
    assert found == ["ralph_verify.plugins.terminal", "ralph_verify.plugins.terminal.x",
                     "ralph_verify.agents.claude"]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (lazy ones too), over the whole package;
    the public face (``ralph_verify`` itself, whose names load lazily) is left out."""
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    del paths["ralph_verify"]
    return {name: {module for _, module in imports(path) if module in paths and module != name}
            for name, path in paths.items()}


def cycles_through(graph: dict[str, set[str]], start: str) -> list[list[str]]:
    """Every import path from ``start`` that leads back to it (each as the modules on it)."""
    found: list[list[str]] = []
    stack = [(start, [start])]
    seen: set[str] = set()
    while stack:
        module, path = stack.pop()
        for target in sorted(graph.get(module, ())):
            if target == start:
                found.append([*path, start])
            elif target not in seen:
                seen.add(target)
                stack.append((target, [*path, target]))
    return found


HOOK_MODE = ("ralph_verify.cli", "ralph_verify.plugins.agenthook",
             "ralph_verify.plugins.commands.agent_hook", "ralph_verify.hookmode.protocol",
             "ralph_verify.hookmode.session", "ralph_verify.hookmode.stop",
             "ralph_verify.hookmode.pretool", "ralph_verify.hookmode.install")


def test_hook_mode_has_no_import_cycle() -> None:
    """``session`` ran the ``hook`` command through ``hookrun``, which imported ``session``
    back: the agent hook's fail-open wrapping is now its command plugin's own hook."""
    graph = import_graph()
    assert all(name in graph for name in HOOK_MODE), sorted(set(HOOK_MODE) - set(graph))
    loops = [" -> ".join(cycle) for name in HOOK_MODE for cycle in cycles_through(graph, name)]
    assert not loops, "import cycles:\n" + "\n".join(loops)


#: The one loop and its two drivers: the API (``loop``), ``run``'s driver, the shared iteration.
ONE_LOOP = ("ralph_verify.api", "ralph_verify.loop.run_driver", "ralph_verify.loop.cycle",
            "ralph_verify.loop.result")


def test_the_loop_and_its_drivers_have_no_import_cycle() -> None:
    """``loop`` started the run driver, which imported ``LoopResult`` back from ``loop``."""
    graph = import_graph()
    loops = [" -> ".join(cycle) for name in ONE_LOOP for cycle in cycles_through(graph, name)]
    assert not loops, "import cycles:\n" + "\n".join(loops)


def test_the_cycle_walk_finds_a_lazy_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles_through(graph, "a") == [["a", "b", "c", "a"]]
    assert cycles_through(graph, "d") == []
