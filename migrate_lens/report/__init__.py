"""Renderers: each output format is a module with ``render(view, out_dir) -> Path``.

The CLI picks formats by key; modules are imported only when their format is asked for, so
the fast paths (``check``) never load Jinja2 or plotting code.
"""

from __future__ import annotations

import importlib
from pathlib import Path
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
