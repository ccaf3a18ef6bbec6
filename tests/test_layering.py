"""The house keeps its floors: the map in docs/architecture.md against the real import graph.

Every import counts: at the top of a module, inside functions (a lazy import is still a
dependency) and under ``TYPE_CHECKING`` (a type-only circle is still a circle). A room (a
top-level module or a folder of modules) may import only rooms on lower floors; the only
upward edges are those the map names; no two modules import each other, however far round.
"""

from __future__ import annotations

import ast
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "docs" / "architecture.md"


@dataclass
class House:
    """The package's modules and the imports between them, file by file."""

    package: Path
    modules: dict[str, Path] = field(default_factory=dict)
    #: module -> {imported module: the first line that imports it}
    imports: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def read(cls, package: Path) -> House:
        house = cls(package)
        for path in sorted(package.rglob("*.py")):
            parts = path.relative_to(package.parent).with_suffix("").parts
            house.modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
        for name, path in house.modules.items():
            found: dict[str, int] = {}
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Import):
                    targets = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    # ``from a import b``: ``a.b`` when b is a module, else ``a``.
                    targets = [f"{node.module}.{alias.name}"
                               if f"{node.module}.{alias.name}" in house.modules else node.module
                               for alias in node.names]
                else:
                    continue
                for target in targets:
                    while target and target not in house.modules:
                        target = target.rpartition(".")[0]
                    if target and target != name:
                        found.setdefault(target, node.lineno)
            house.imports[name] = found
        return house

    def room(self, module: str) -> str:
        parts = module.split(".")
        return "__init__" if len(parts) == 1 else parts[1]

    def circles(self) -> list[list[str]]:
        """Modules that import each other, however far round (Tarjan's strongly connected
        components of more than one module)."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []

        def visit(start: str) -> None:  # iterative: no recursion limit on a deep graph
            work = [(start, iter(sorted(self.imports[start])))]
            index[start] = low[start] = len(index)
            stack.append(start)
            on_stack.add(start)
            while work:
                node, targets = work[-1]
                for target in targets:
                    if target not in index:
                        index[target] = low[target] = len(index)
                        stack.append(target)
                        on_stack.add(target)
                        work.append((target, iter(sorted(self.imports[target]))))
                        break
                    if target in on_stack:
                        low[node] = min(low[node], index[target])
                else:
                    work.pop()
                    if work:
                        low[work[-1][0]] = min(low[work[-1][0]], low[node])
                    if low[node] == index[node]:
                        component = []
                        while True:
                            member = stack.pop()
                            on_stack.discard(member)
                            component.append(member)
                            if member == node:
                                break
                        if len(component) > 1:
                            found.append(sorted(component))

        for module in sorted(self.modules):
            if module not in index:
                visit(module)
        return found


@dataclass
class Floors:
    """The map's floor of each room and the upward edges it allows, read from the page."""

    floor: dict[str, int]
    upward: set[tuple[str, str]]

    @classmethod
    def read(cls, text: str) -> Floors:
        floor: dict[str, int] = {}
        upward: set[tuple[str, str]] = set()
        section = ""
        for line in text.splitlines():
            if line.startswith("#"):
                section = line
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not line.startswith("|") or len(cells) < 3 or set(cells[0]) <= {"-", " "}:
                continue
            names = [name.rstrip("/") for name in re.findall(r"`([^`]+)`", " ".join(cells[:2]))]
            if "Floors" in section and cells[0].isdigit() and names:
                floor[names[0]] = int(cells[0])
            elif "upward" in section and len(names) >= 2:
                upward.add((names[0], names[1]))
        return cls(floor, upward)


def wrong_edges(house: House, floors: Floors) -> list[str]:
    """Every import that breaks the map: a room it does not list, or an edge that does not
    run down (unless the map names it)."""
    wrong = []
    for module, targets in sorted(house.imports.items()):
        source = house.room(module)
        if source not in floors.floor:
            wrong.append(f"{module}: room {source!r} is not on the map ({MAP.name})")
            continue
        for target, line in sorted(targets.items()):
            room = house.room(target)
            if room == source or (source, room) in floors.upward:
                continue
            if room not in floors.floor:
                wrong.append(f"{module}: room {room!r} is not on the map")
            elif floors.floor[room] >= floors.floor[source]:
                wrong.append(f"{house.modules[module].relative_to(house.package.parent)}:{line}: "
                             f"{source} (floor {floors.floor[source]}) imports {target} "
                             f"(floor {floors.floor[room]})")
    return wrong


def test_every_import_runs_down_the_floors_of_the_map() -> None:
    house, floors = House.read(ROOT / "ralph_verify"), Floors.read(MAP.read_text("utf-8"))
    wrong = wrong_edges(house, floors)
    assert not wrong, "imports against docs/architecture.md:\n" + "\n".join(wrong)


def test_no_circle_in_the_import_graph() -> None:
    circles = House.read(ROOT / "ralph_verify").circles()
    assert not circles, "modules that import each other:\n" + "\n".join(
        " <-> ".join(circle) for circle in circles)


def test_every_room_on_the_map_exists_and_upward_edges_are_used() -> None:
    house, floors = House.read(ROOT / "ralph_verify"), Floors.read(MAP.read_text("utf-8"))
    rooms = {house.room(module) for module in house.modules}
    assert set(floors.floor) == rooms, (sorted(set(floors.floor) - rooms),
                                        sorted(rooms - set(floors.floor)))
    used = {(house.room(m), house.room(t)) for m, targets in house.imports.items()
            for t in targets}
    assert floors.upward <= used, f"the map allows edges nothing uses: {floors.upward - used}"
    assert len(rooms) <= 35 and max(floors.floor.values()) <= 12


def test_a_planted_upward_import_fails(tmp_path: Path) -> None:
    """The check itself: the process plumbing (floor 1) importing the loop (floor 6) inside
    a function, and a type-only circle, are both found in a copy of the package."""
    package = tmp_path / "ralph_verify"
    shutil.copytree(ROOT / "ralph_verify", package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    process = package / "proc" / "process.py"
    process.write_text(process.read_text("utf-8") + "\n\ndef _planted() -> None:\n"
                       "    from ralph_verify.loop.cycle import run_iteration  # noqa\n")
    house, floors = House.read(package), Floors.read(MAP.read_text("utf-8"))
    wrong = wrong_edges(house, floors)
    assert any("proc/process.py" in line and "imports ralph_verify.loop.cycle" in line
               for line in wrong), wrong
    assert house.circles(), "the planted import closes a circle through the loop"


def test_the_map_reader_and_the_circle_walk(tmp_path: Path) -> None:
    floors = Floors.read("## Floors\n| floor | room | owns |\n| --- | --- | --- |\n"
                         "| 1 | `a/` | x |\n| 2 | `b` | y |\n"
                         "### Edges allowed to run upward\n| from | to | why |\n"
                         "| --- | --- | --- |\n| `a` | `b/` | z |\n")
    assert floors.floor == {"a": 1, "b": 2} and floors.upward == {("a", "b")}
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "x.py").write_text("from typing import TYPE_CHECKING\n"
                                  "if TYPE_CHECKING:\n    from pkg.y import Y\n")
    (package / "y.py").write_text("def f():\n    import pkg.x\n")
    assert House.read(package).circles() == [["pkg.x", "pkg.y"]]
