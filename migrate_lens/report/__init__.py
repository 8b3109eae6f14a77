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
    """Write ``formats`` (keys of :data:`FORMATS`) for ``view`` into ``out_dir``; the written
    paths in ``formats``' order.

    The HTML page is written here, last (its charts are drawn meanwhile, see
    :mod:`migrate_lens.report.chartset`); the other formats are written at the same time by a
    forked child (each renderer reads only the view and writes its own file atomically) when
    forking is affordable (:mod:`migrate_lens.report._fork`: Linux, and not for a main process
    so large that a copy would break the memory budget). If the child fails or hangs, they are
    written again here, so an error is raised from this process as it would be without it. On core (626k lines)
    this takes JSON's ~0.5 s off every scan. Raises what the renderers raise (``OSError``...)."""
    from migrate_lens.report._fork import collect, fork_child

    out_dir.mkdir(parents=True, exist_ok=True)
    others = [f for f in formats if f != "html"]
    started = fork_child(_render_in_child, view, out_dir, others) if "html" in formats and others else None
    paths: dict[str, Path] = {}
    try:
        if "html" in formats:
            paths["html"] = renderer("html")(view, out_dir)
    finally:
        if started is not None:
            written = collect(*started, CHILD_TIMEOUT_S)
            if isinstance(written, dict):
                paths.update(written)
    for f in others:
        if f not in paths:
            paths[f] = renderer(f)(view, out_dir)
    return [paths[f] for f in formats]


#: Seconds :func:`render_all` waits for its child's formats before writing them itself.
CHILD_TIMEOUT_S = 300.0


def _render_in_child(conn: Any, view: dict[str, Any], out_dir: Path, formats: list[str]) -> None:
    """The forked child of :func:`render_all`: write ``formats`` and send {format: path}, or
    None on any failure (the parent then writes them itself and raises the error)."""
    try:
        written: dict[str, Path] | None = {f: renderer(f)(view, out_dir) for f in formats}
    except BaseException:  # noqa: BLE001 - reported by the parent, which renders again
        written = None
    conn.send(written)
