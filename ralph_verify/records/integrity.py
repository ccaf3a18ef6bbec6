"""The integrity picture, typed: how strict a project is (``.ralph/integrity-baseline.json``,
the session's frozen copy). Every field has a default, so an older version's picture still
reads; another version's per-file facts (:data:`FACTS`) are found afresh. A finding's rows stay
JSON arrays: their meaning belongs to the rule that writes and reads them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ralph_verify.records.codec import ShapeError, decode

#: The version of the picture's layout (``version``).
VERSION = 1
#: The version of the per-file facts (``facts``).
FACTS = 4


@dataclass(frozen=True)
class Setting:
    """One watched setting: ``key`` is ``tool.section.name`` (``coverage.report.fail_under``)."""

    file: str
    key: str
    value: Any
    line: int | None = None
    #: Line of each list entry, where it could be found.
    item_lines: dict[str, int] = field(default_factory=dict)


@dataclass
class TestBody:
    """What a test function does (:func:`ralph_verify.integrity.rules.weakened.summarise`)."""

    line: int
    checks: int
    #: ``[kind, line, source]`` of each weak spot.
    weak: list[list[Any]] = field(default_factory=list)
    #: Digests of its body and of its shape (names left out), to tell a rename.
    sha: str = ""
    shape: str = ""
    #: The project's names it uses.
    uses: list[str] = field(default_factory=list)
    #: A digest of its source: an unchanged test is not walked again.
    src: str = ""
    #: ``[rule, line, source]`` of each check that cannot fail or is never run.
    found: list[list[Any]] = field(default_factory=list)
    #: ``[function, inputs, expected]`` of each call whose result it compares with a literal.
    pairs: list[list[Any]] = field(default_factory=list)


@dataclass
class FileFacts:
    """What the rules found in one Python file (each rule fills its own fields), reused
    while the file's hash is the same."""

    sha: str
    #: A test file's test functions (name -> line); ``None``: not a test file.
    tests: dict[str, int] | None = None
    bodies: dict[str, TestBody] = field(default_factory=dict)
    #: The pytest markers it uses (``@pytest.mark.slow``).
    marks: list[str] = field(default_factory=list)
    parses: bool = True
    literals: list[Any] = field(default_factory=list)
    #: ``[line, source]`` of each process exit.
    exits: list[list[Any]] = field(default_factory=list)
    #: ``[kind, text, line, source]`` of each skip, xfail and suppression comment.
    markers: list[list[Any]] = field(default_factory=list)
    #: A source file's raw findings of the gaming scan; ``None``: not a source file.
    scan: list[list[Any]] | None = None
    defined: list[str] = field(default_factory=list)
    deprecations: int = 0
    #: ``[target, line, source, scope]`` of each stand-in for project code.
    standins: list[list[Any]] = field(default_factory=list)
    #: Names a test module imports from the project (name -> dotted path).
    imports: dict[str, str] = field(default_factory=dict)
    #: ``[kind, function, inputs, output, line, source]`` of each special-case candidate.
    candidates: list[list[Any]] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)


@dataclass
class Facts:
    """Every Python file's facts, by path, of the version :data:`FACTS`."""

    version: int = FACTS
    files: dict[str, FileFacts] = field(default_factory=dict)


@dataclass
class Tools:
    """The tools' config inputs and each tool's effective settings (``{"error": ...}``
    when they could not be resolved)."""

    #: Config file (or ``$VARIABLE``) -> its digest or value.
    config: dict[str, str] = field(default_factory=dict)
    #: Tool -> its effective settings, in the shape its own reader gives them.
    effective: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class InfraPicture:
    """Test infrastructure: conftests, plugins, start-up files, and the process exits."""

    #: Path -> ``[kind, digest]`` (kind: ``conftest``, ``plugin``, ``startup``).
    files: dict[str, list[str]] = field(default_factory=dict)
    #: Path -> ``[line, source]`` of each process exit in test code.
    exits: dict[str, list[list[Any]]] = field(default_factory=dict)


@dataclass
class Gate:
    """What decides the session: its baseline verification's checks and ``[check, path,
    code]`` of each failure they reported then."""

    checks: list[str] = field(default_factory=list)
    failing: list[list[str]] = field(default_factory=list)


@dataclass
class ConfigCopy:
    """The frozen copy's ``[tool.ralph-verify]`` table, as the session started with it."""

    table: dict[str, object] = field(default_factory=dict)


@dataclass
class Picture:
    """How strict a project is (``.ralph/integrity-baseline.json``): its tests, markers and
    suppressions, watched settings, infrastructure, and hashes of guarded files."""

    version: int = VERSION
    session: str = ""
    taken_at: str = ""
    protected_globs: list[str] = field(default_factory=list)
    keep_globs: list[str] = field(default_factory=list)
    #: The baseline verification's pytest counts (``passed``, ``failed``...).
    test_counts: dict[str, int] = field(default_factory=dict)
    #: Test file -> test function -> its line.
    tests: dict[str, dict[str, int]] = field(default_factory=dict)
    #: File -> ``[kind, text, line, source]`` of each marker and suppression comment.
    markers: dict[str, list[list[Any]]] = field(default_factory=dict)
    settings: list[Setting] = field(default_factory=list)
    infra: InfraPicture | None = None
    facts: Facts | None = None
    tools: Tools | None = None
    #: Test file -> test function -> what it does.
    test_bodies: dict[str, dict[str, TestBody]] = field(default_factory=dict)
    #: Names the project's sources define (``None``: a picture from an older version).
    defined: list[str] | None = None
    deprecations: int = 0
    #: The pytest markers the tests use (``None``: a picture from an older version).
    marks: list[str] | None = None
    #: Test files that do not parse.
    unparsed: list[str] = field(default_factory=list)
    allow: list[str] = field(default_factory=list)
    #: Guarded file -> its sha256.
    hashes: dict[str, str] = field(default_factory=dict)
    protected: list[str] = field(default_factory=list)
    gate: Gate | None = None
    #: ``check --baseline REF``: the ref pictured.
    ref: str | None = None
    #: The ``.ralph`` copy only: the verdict its session ended with.
    finished: str | None = None
    #: The frozen copy only: the ralph-verify configuration the session started with.
    config: ConfigCopy | None = None
    #: The frozen copy only: product file -> the lines the start's tests ran (when the
    #: session measures coverage).
    reached: dict[str, list[int]] = field(default_factory=dict)
    #: When the session checks types: module -> ``[lines mypy does not check precisely,
    #: lines of code]`` (the frozen copy: the start's; a judged picture: today's).
    precision: dict[str, list[int]] = field(default_factory=dict)

    @property
    def test_total(self) -> int:
        return sum(len(names) for names in self.tests.values())

    @property
    def marker_total(self) -> int:
        return sum(len(found) for found in self.markers.values())

    def as_taken(self) -> Picture:
        """The picture without what is added to its copies (the end, the configuration)."""
        return dataclasses.replace(self, finished=None, config=None, reached={}, precision={})


def picture_of(data: object) -> Picture:
    """A picture from its JSON (:class:`ShapeError` when it is not one); per-file findings
    of another version are left out (found afresh)."""
    if not isinstance(data, dict) or not isinstance(data.get("tests"), dict):
        raise ShapeError("it is not an integrity picture")
    data = dict(data)
    part = data.get("facts")
    if isinstance(part, dict) and part.get("version") != FACTS:
        data["facts"] = None
    return decode(Picture, data)
