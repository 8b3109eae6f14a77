"""Test helpers for running the analyzer on snippets and reading line annotations."""

from __future__ import annotations

import re

from migrate_lens.analysis.engine import analyze_native_file, analyze_source, resolve_traced_only
from migrate_lens.catalog import Catalog
from migrate_lens.models import Finding

_PATH_LINE = re.compile(r"^#\s*path:\s*(\S+)")


def findings(source: str, catalog: Catalog, path: str = "snippet.py", module: str = "snippet") -> tuple[Finding, ...]:
    """Active findings of ``source`` with ``traced_only`` ones kept only when reachable from
    a forward in the same file (:func:`resolve_traced_only`). A snippet whose first line is
    ``# path: x.cu`` stands for a native file and gets the ``source-file`` rules' findings."""
    first = source.lstrip("\n").splitlines()[0] if source.strip() else ""
    m = _PATH_LINE.match(first)
    if m and not m.group(1).endswith(".py"):
        offset = source[: source.index(first)].count("\n")
        return tuple(
            f.__class__(**{**{s: getattr(f, s) for s in f.__slots__}, "span": f.span.__class__(1 + offset, 0, 1 + offset, 0)})
            for f in analyze_native_file(m.group(1), module, catalog)
        )
    if m:
        path = m.group(1)
    facts = resolve_traced_only(analyze_source(source, path, module, catalog), catalog)
    return tuple(f for f in facts.findings if not f.suppressed or f.suppressed == "fixme")


def lines_of(found: tuple[Finding, ...], code: str) -> set[int]:
    """Lines with at least one finding of ``code``, or into which one was folded (one site,
    one finding: the kept finding names the folded hazard)."""
    return {f.span.line for f in found if f.code == code or code in f.folds}


def marked_lines(source: str, marker: str = "# expect") -> set[int]:
    """1-based lines of ``source`` carrying ``marker`` (``# expect``)."""
    return {i for i, line in enumerate(source.splitlines(), start=1) if marker in line}
