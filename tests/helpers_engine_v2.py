"""Annotated fixture packages of ``fixtures/engine-v2`` (issue 14: analysis engine v2).

Each ``fixtures/engine-v2/<kind>/<package>/`` is a small PyTorch package shaped like public
model code, where the hazard sits in another file than ``forward``. Lines carry the fixture
convention of ``tests/test_fixtures.py``: ``# expect: ML102`` (the line must carry that code)
and ``# ok: ML102`` (it must not). A package whose name starts with ``neg_`` is a near-miss
negative: the scan must report no finding at all in it.

The package is analyzed the way ``scan`` does it: one :func:`~migrate_lens.onefile.analyze_file` per
file (the worker's job: the marker pre-filter, then :func:`analyze_source`), then
:func:`build_project` over the package (cross-file bindings, calls and traced reachability).
Used by ``tests/test_engine_v2.py`` and ``benchmarks/recall_bench.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from migrate_lens.analysis.engine import build_index
from migrate_lens.catalog import Catalog
from migrate_lens.config import Config
from migrate_lens.discover import NATIVE_SUFFIXES, module_name
from migrate_lens.graph import Project, build_project
from migrate_lens.onefile import analyze_file
from migrate_lens.pipeline import _native_facts
from migrate_lens.prepass import file_contexts

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "engine-v2"
#: The kinds of issue 14's "what the engine must understand", one folder each.
KINDS = ("bindings", "injection", "flow", "contexts", "external-state")
ANNOTATION = re.compile(r"#\s*(expect|ok):\s*((?:ML\d{3,4}\s*,?\s*)+)")

#: ``(path relative to the kind folder, line, code)``
Site = tuple[str, int, str]


@dataclass(frozen=True)
class PackageResult:
    """Expected and reported sites of one fixture package.

    ``want``: annotated ``expect`` sites; ``got``: reported sites restricted to the codes
    annotated anywhere in the package (all codes for a ``neg_`` package, where ``want`` is
    empty); ``negative``: the package is a near miss that must stay silent.
    """

    name: str
    negative: bool
    want: frozenset[Site]
    got: frozenset[Site]

    @property
    def missing(self) -> list[Site]:
        return sorted(self.want - self.got)

    @property
    def unexpected(self) -> list[Site]:
        return sorted(self.got - self.want)


def packages(kind: str) -> list[Path]:
    """The fixture packages of ``kind`` (sorted folder paths)."""
    folder = ROOT / kind
    return sorted(p for p in folder.iterdir() if (p / "__init__.py").exists()) if folder.is_dir() else []


def annotations(root: Path) -> tuple[set[Site], set[str]]:
    """``(expected sites, annotated codes)`` of every ``.py`` under the package ``root``;
    paths are relative to the package's parent folder."""
    want: set[Site] = set()
    codes: set[str] = set()
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root.parent).as_posix()
        for lineno, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1):
            for kind, raw in ANNOTATION.findall(line):
                for code in re.findall(r"ML\d{3,4}", raw):
                    codes.add(code)
                    if kind == "expect":
                        want.add((rel, lineno, code))
    return want, codes


def scan_package(root: Path, catalog: Catalog, config: Config | None = None) -> Project:
    """The project of one fixture package, built as ``scan`` builds it (paths relative to the
    package's parent folder, so module names start with the package name)."""
    config = config or Config()
    index = build_index(catalog.rules)
    facts = []
    files = {p.relative_to(root.parent).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}
    contexts = file_contexts({rel: (module_name(rel), data) for rel, data in files.items()})
    for rel, data in files.items():
        outcome = analyze_file(data, rel, module_name(rel), catalog, index, config.markers, *contexts[rel])
        assert outcome.facts is not None, f"{rel}: {outcome.skipped}"
        facts.append(outcome.facts)
    native = tuple(p.relative_to(root.parent).as_posix() for p in sorted(root.rglob("*"))
                   if p.is_file() and p.name.endswith(NATIVE_SUFFIXES))
    facts.extend(_native_facts(root.parent, native, catalog))  # (`.cu` kernels, Cython `.pyx` sources)
    return build_project(facts, catalog, config)


def evaluate(root: Path, catalog: Catalog) -> PackageResult:
    """Compare one package's annotations with its final (project-level) findings."""
    want, codes = annotations(root)
    negative = root.name.startswith("neg_")
    project = scan_package(root, catalog)
    active = [f for f in project.findings if not f.suppressed or f.suppressed == "fixme"]
    got = {(f.path, f.span.line, f.code) for f in active if negative or f.code in codes}
    return PackageResult(root.name, negative, frozenset(want), frozenset(got))
