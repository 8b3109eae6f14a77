"""Test helpers for running the analyzer on snippets and reading line annotations."""

from __future__ import annotations

import re

from migrate_lens.analysis.engine import analyze_native_file, analyze_source, resolve_traced_only
from migrate_lens.catalog import Catalog
from migrate_lens.models import Finding

_PATH_LINE = re.compile(r"^#\s*path:\s*(\S+)")
_FILE_LINE = re.compile(r"^#\s*file:\s*(\S+\.py)\s*$")


def package_findings(source: str, catalog: Catalog) -> tuple[Finding, ...]:
    """Findings of a several-file example: ``# file: pkg/mod.py`` lines open each file. The
    files are analyzed one by one and joined by the project graph, as ``scan`` does (for
    project-level rules); each finding's line is moved to its line in ``source``, so the
    example's ``# expect`` marks count as for one file."""
    from migrate_lens.config import Config
    from migrate_lens.discover import module_name
    from migrate_lens.graph import build_project

    lines = source.splitlines()
    heads = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _FILE_LINE.match(line))]
    offsets: dict[str, int] = {}
    facts = []
    for k, (i, path) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        offsets[path] = i + 1  # the file's line 1 is the example's line i + 2
        facts.append(analyze_source("\n".join(lines[i + 1:end]) + "\n", path, module_name(path), catalog))
    project = build_project(facts, catalog, Config())
    return tuple(
        f.__class__(**{**{s: getattr(f, s) for s in f.__slots__},
                       "span": f.span.__class__(f.span.line + offsets[f.path], f.span.column,
                                                f.span.end_line + offsets[f.path], f.span.end_column)})
        for f in project.findings if not f.suppressed or f.suppressed == "fixme")


def findings(source: str, catalog: Catalog, path: str = "snippet.py", module: str = "snippet") -> tuple[Finding, ...]:
    """Active findings of ``source`` with ``traced_only`` ones kept only when reachable from
    a forward in the same file (:func:`resolve_traced_only`). A snippet whose first line is
    ``# path: x.cu`` stands for a native file and gets the ``source-file`` rules' findings; one
    whose first line is ``# file: pkg/mod.py`` holds several files (:func:`package_findings`)."""
    first = source.lstrip("\n").splitlines()[0] if source.strip() else ""
    if _FILE_LINE.match(first):
        return package_findings(source, catalog)
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
