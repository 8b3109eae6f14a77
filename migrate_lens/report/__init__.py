"""Renderers: each output format is a module with ``render(view, out_dir) -> Path``.

The CLI picks formats by key; modules are imported only when their format is asked for, so
the fast paths (``check``) never load Jinja2 or plotting code.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from collections.abc import Sequence
from typing import Any, Callable

#: format name -> module implementing ``render(view: dict, out_dir: Path) -> Path``.
FORMATS: dict[str, str] = {
    "json": "migrate_lens.report.json_",
    "html": "migrate_lens.report.html",
    "sarif": "migrate_lens.report.sarif",
    "md": "migrate_lens.report.markdown",
}


def renderer(fmt: str) -> Callable[[dict[str, Any], Path], Path]:
    """The ``render`` function of format ``fmt``. Raises KeyError for an unknown format."""
    module = importlib.import_module(FORMATS[fmt])
    return module.render  # type: ignore[no-any-return]


def render_all(view: dict[str, Any], out_dir: Path, formats: Sequence[str]) -> list[Path]:
    """Write ``formats`` (keys of :data:`FORMATS`) for ``view`` into ``out_dir``, one after the
    other in this process, the HTML page last (its charts may be drawn by a helper process
    meanwhile, :func:`migrate_lens.report.chartset.prefetch`); the written paths in
    ``formats``' order. Raises what the renderers raise (``OSError``...).

    (Until 0.1 the page's charts and the other formats were produced in forked children; on the
    626k-line ``core`` tier that saved about 1 s of a 35 s scan, measured in docs/performance.md,
    and was removed as not worth its process management. Only the chart set is drawn elsewhere
    now, by a spawned helper that shares nothing with this process.)"""
    out_dir.mkdir(parents=True, exist_ok=True)
    order = sorted(range(len(formats)), key=lambda i: formats[i] == "html")
    written: dict[int, Path] = {i: renderer(formats[i])(view, out_dir) for i in order}
    return [written[i] for i in range(len(formats))]
