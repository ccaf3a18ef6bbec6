"""One picture of how strict a project is, taken the same way at the session's start and
at every verification (saved as ``.ralph/integrity-baseline.json``)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from ralph_verify.integrity.rule import Source
from ralph_verify.integrity.rules import gaming, infra, standins
from ralph_verify.integrity.rules.guarded import matching
from ralph_verify.integrity.rules.settings import tools
from ralph_verify.integrity.settings import read_all
from ralph_verify.integrity.sources import parse
from ralph_verify.project.snapshot import project_files
from ralph_verify.records import integrity as records
from ralph_verify.records.integrity import Picture
from ralph_verify.state_files import now_iso


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def take(root: Path, *, protected: Sequence[str], keep: Sequence[str],
         session: str = "", test_counts: dict[str, int] | None = None,
         allow: Sequence[str] = (), previous: Picture | None = None) -> Picture:
    """The picture of ``root`` (``previous``: the baseline, whose facts are reused for each
    file whose hash did not change, so an iteration parses only the files it changed)."""
    from ralph_verify.integrity.rules import RULES

    files = [p for p in project_files(root) if (root / p).is_file()]
    settings = read_all(root, files)
    infra_files = infra.take(root, settings)
    plugins = frozenset(rel for rel, (kind, _) in infra_files.files.items() if kind == "plugin")
    own = frozenset(standins.project_names(f for f in files if gaming.is_source(f)))
    old = previous.facts if previous is not None else None

    found: dict[str, records.FileFacts] = {}
    for rel in files:
        if not rel.endswith((".py", ".pyi")):
            continue
        try:
            data = (root / rel).read_bytes()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        digest = hashlib.sha256(data).hexdigest()[:16]
        kept = old.files.get(rel) if old is not None else None
        if kept is not None and kept.sha == digest:
            found[rel] = kept
            continue
        found[rel] = records.FileFacts(digest)
        src = Source(rel, text, parse(text), own, plugins, kept)
        for rule in RULES:
            if rule.facts is not None:
                rule.facts(src, found[rel])
    tests = {rel: f.tests for rel, f in found.items() if f.tests is not None}
    for rel, entry in found.items():
        if entry.exits and rel not in infra_files.files:
            infra_files.exits[rel] = entry.exits
    guarded = {**matching(files, keep), **matching(files, protected)}
    return Picture(
        session=session,
        taken_at=now_iso(),
        protected_globs=list(protected),
        keep_globs=list(keep),
        test_counts=test_counts or {},
        tests=tests,
        markers={rel: f.markers for rel, f in found.items() if f.markers},
        settings=settings,
        infra=infra_files,
        facts=records.Facts(records.FACTS, found),
        tools=tools(root, files, settings,
                    previous.tools if previous is not None else None),
        test_bodies={rel: found[rel].bodies for rel in tests},
        defined=sorted({n for f in found.values() for n in f.defined}),
        deprecations=sum(f.deprecations for f in found.values()),
        marks=sorted({m for rel in tests for m in found[rel].marks}),
        unparsed=[rel for rel in tests if not found[rel].bodies and not found[rel].parses],
        allow=list(allow),
        hashes={rel: _sha(root / rel) for rel in guarded},
        protected=sorted(matching(files, protected)))

