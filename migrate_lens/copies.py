"""Copy families: near-duplicate classes and functions, so a copy is priced as a copy.

Model zoos copy code on purpose: transformers and diffusers mark a copied class or function
with ``# Copied from pkg.mod.Name [with A->B]`` (their CI keeps the copy equal to its source),
and transformers generates ``modeling_x.py`` from a short ``modular_x.py`` that inherits from
other models. Porting the second copy is applying the port of the first (rename, re-run the
parity test), not porting it again.

Evidence, strongest first (``evidence`` of a family):

- ``marker``: a ``# Copied from`` comment names the source. A source outside the scanned tree
  still makes the unit a copy (its code exists elsewhere already, e.g. in the package it was
  copied from, whose port is reused).
- ``modular``: a definition in ``modular_x.py`` whose folder holds the ``modeling_x.py``
  generated from it (the generated file names it in its header): the generated file is what is
  ported, the modular definition is its copy.
- ``same shape``: equal digests of the normalised code text (:mod:`migrate_lens.analysis.shape`: no
  strings, docstrings, comments or layout, model-family names normalised) of at least
  :data:`MIN_COPY_LINES` code lines.

In every family the *original* is the member not in a ``modular_*.py`` file and without a
marker, then the one most markers name, then first by path and line; every other member is a copy. Only the outermost copied
definition counts (a copied class's methods are part of it).
"""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from migrate_lens.models import FileFacts, UnitShape

#: Smallest definition (code lines) matched by shape alone: shorter ones (a three-line
#: ``forward``) are equal by chance as often as by copying.
MIN_COPY_LINES = 6


@dataclass(frozen=True, slots=True)
class Copy:
    """One copied definition: ``qualname``, ``path``, 1-based ``line``..``end_line``,
    ``code_lines``, the family's ``original`` (a qualname; outside the tree for an external
    marker) and the ``evidence`` (marker | modular | same shape)."""

    qualname: str
    path: str
    line: int
    end_line: int
    code_lines: int
    original: str
    evidence: str


@dataclass(frozen=True, slots=True)
class Family:
    """Definitions with the same code: the ``original`` (qualname), its ``path``, its
    ``code_lines``, and the ``copies`` (sorted by path, line)."""

    original: str
    path: str
    code_lines: int
    copies: tuple[Copy, ...]

    @property
    def copied_lines(self) -> int:
        """Code lines of all copies."""
        return sum(c.code_lines for c in self.copies)


@dataclass(frozen=True)
class CopyIndex:
    """The families of a project (largest copied code first) and the copied definitions by
    file path (outermost only, sorted by line)."""

    families: tuple[Family, ...]
    by_path: Mapping[str, tuple[Copy, ...]]

    def copied_lines_in(self, path: str, line: int, end_line: int) -> int:
        """Code lines of the copies of ``path`` within ``line``..``end_line``."""
        return sum(c.code_lines for c in self.by_path.get(path, ()) if line <= c.line and c.end_line <= end_line)

    def copy_at(self, path: str, line: int) -> Copy | None:
        """The copied definition covering ``path:line``, if any."""
        for c in self.by_path.get(path, ()):
            if c.line <= line <= c.end_line:
                return c
        return None


class _Union:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while x != root:
            parent[x], x = root, parent.get(x, x)
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _modular_twins(files: Sequence[FileFacts]) -> dict[str, str]:
    """modular file path -> the path of the file generated from it."""
    by_path = {f.path for f in files}
    out: dict[str, str] = {}
    for f in files:
        if f.generated_from:
            twin = posixpath.join(posixpath.dirname(f.path), f.generated_from)
            if twin in by_path:
                out[twin] = f.path
    return out


def find_copies(files: Iterable[FileFacts]) -> CopyIndex:
    """The copy families of ``files`` (deterministic: sorted by path, line)."""
    files = sorted(files, key=lambda f: f.path)
    shapes: dict[str, tuple[UnitShape, FileFacts]] = {}
    for f in files:
        for sh in f.shapes:
            shapes.setdefault(sh.qualname, (sh, f))
    uf = _Union()
    evidence: dict[str, str] = {}
    by_digest: dict[str, list[str]] = defaultdict(list)
    for q, (sh, _f) in shapes.items():
        if sh.code_lines >= MIN_COPY_LINES:
            by_digest[sh.digest].append(q)
    for members in by_digest.values():
        for q in members[1:]:
            uf.union(members[0], q)
            evidence.setdefault(q, "same shape")
    external: dict[str, str] = {}
    for q, (sh, _f) in shapes.items():
        if sh.copied_from:
            evidence[q] = "marker"
            if sh.copied_from in shapes and sh.copied_from != q:
                uf.union(q, sh.copied_from)
            else:
                external[q] = sh.copied_from
    modular = _modular_twins(files)
    generated_module = {f.path: f.module for f in files}
    for f in files:
        twin = modular.get(f.path)
        if twin is None:
            continue
        for sh in f.shapes:
            target = generated_module[twin] + sh.qualname[len(f.module):]
            if target in shapes:
                uf.union(sh.qualname, target)
                evidence[sh.qualname] = "modular"
    groups: dict[str, list[str]] = defaultdict(list)
    linked, find = uf.parent, uf.find
    for q in shapes:  # (most definitions are in no family: their own root, no walk)
        groups[find(q) if q in linked else q].append(q)

    targets = Counter(sh.copied_from for sh, _f in shapes.values() if sh.copied_from)

    def order(q: str) -> tuple[int, int, int, str, int]:
        sh, f = shapes[q]
        return (int(f.path in modular), int(bool(sh.copied_from)), -targets.get(q, 0), f.path, sh.line)

    raw: list[tuple[str, list[str]]] = []
    for members in groups.values():
        if len(members) > 1:
            members.sort(key=order)
            raw.append((members[0], members[1:]))
        q = members[0]
        if q in external and len(members) == 1:
            raw.append((external[q], [q]))  # a copy of code outside the tree
    # outermost copies only: a definition inside a copied one is part of it
    spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for _orig, copies in raw:
        for q in copies:
            sh, f = shapes[q]
            spans[f.path].append((sh.line, -sh.end_line, q))
    keep: set[str] = set()
    for path, items in spans.items():
        items.sort()
        end = 0
        for line, neg_end, q in items:
            if line > end:
                keep.add(q)
                end = -neg_end
    families: list[Family] = []
    by_path: dict[str, list[Copy]] = defaultdict(list)
    for orig, copies in raw:
        kept = []
        for q in copies:
            if q not in keep:
                continue
            sh, f = shapes[q]
            c = Copy(q, f.path, sh.line, sh.end_line, sh.code_lines, orig, evidence.get(q, "same shape"))
            kept.append(c)
            by_path[f.path].append(c)
        if kept:
            o = shapes.get(orig)
            families.append(Family(orig, o[1].path if o else "", o[0].code_lines if o else 0,
                                   tuple(sorted(kept, key=lambda c: (c.path, c.line)))))
    families.sort(key=lambda fam: (-fam.copied_lines, fam.original))
    return CopyIndex(tuple(families), {p: tuple(sorted(cs, key=lambda c: c.line)) for p, cs in sorted(by_path.items())})
