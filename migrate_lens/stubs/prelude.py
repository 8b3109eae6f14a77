"""Copies helpers from ``prelude_src.py`` into generated stubs, with their dependencies.

The helper file is parsed with :mod:`ast` (read as text, never imported), so the translator
does not need JAX installed.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

_SRC = Path(__file__).with_name("prelude_src.py")


@lru_cache(maxsize=1)
def _helpers() -> dict[str, tuple[int, str, frozenset[str]]]:
    """name -> (order in the file, source, names it references)."""
    text = _SRC.read_text(encoding="utf-8")
    tree = ast.parse(text)
    out: dict[str, tuple[int, str, frozenset[str]]] = {}
    for i, node in enumerate(tree.body):
        names: list[str] = []
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if not names:
            continue
        src = ast.get_source_segment(text, node) or ""
        refs = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
        for name in names:
            out[name] = (i, src, refs)
    return out


def helper_names() -> frozenset[str]:
    """Every helper a stub may reference."""
    return frozenset(_helpers())


def prelude_for(used: set[str]) -> str:
    """Source of the helpers in ``used`` and everything they reference, in file order, or ""."""
    helpers = _helpers()
    todo = [n for n in used if n in helpers]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(r for r in helpers[name][2] if r in helpers and r not in seen)
    blocks = sorted({helpers[n][0]: helpers[n][1] for n in seen}.items())
    return "\n\n\n".join(src for _, src in blocks)
