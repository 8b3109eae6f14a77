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
    :mod:`migrate_lens.report.chartset`); where ``fork`` is available the other formats are
    written at the same time by a forked child (each renderer reads only the view and writes
    its own file atomically) when forking is affordable (:mod:`migrate_lens.report._fork`: not
    for a main process so large that a copy would break the memory budget). If the child fails or hangs, they are written again here, so an
    error is raised from this process as it would be without the child. On core (626k lines)
    this takes JSON's ~0.5 s off every scan. Raises what the renderers raise (``OSError``...)."""
    import multiprocessing

    from migrate_lens.report._fork import fork_affordable

    out_dir.mkdir(parents=True, exist_ok=True)
    others = [f for f in formats if f != "html"]
    paths: dict[str, Path] = {}
    child = receive = None
    if "html" in formats and others and fork_affordable():
        ctx = multiprocessing.get_context("fork")
        receive, send = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_render_in_child, args=(view, out_dir, others, send), daemon=True)
        child.start()
        send.close()  # EOF on `receive` if the child dies
    try:
        if "html" in formats:
            paths["html"] = renderer("html")(view, out_dir)
    finally:
        if child is not None and receive is not None:
            written = None
            try:
                if receive.poll(CHILD_TIMEOUT_S):
                    written = receive.recv()
            except (EOFError, OSError):
                written = None
            receive.close()
            if written is None:
                child.kill()
            child.join(timeout=5)
            if isinstance(written, dict):
                paths.update(written)
    for f in others:
        if f not in paths:
            paths[f] = renderer(f)(view, out_dir)
    return [paths[f] for f in formats]


#: Seconds :func:`render_all` waits for its child's formats before writing them itself.
CHILD_TIMEOUT_S = 300.0


def _render_in_child(view: dict[str, Any], out_dir: Path, formats: list[str], send: Any) -> None:
    """The forked child of :func:`render_all`: write ``formats`` and send {format: path}, or
    None on any failure (the parent then writes them itself and raises the error)."""
    try:
        written: dict[str, Path] | None = {f: renderer(f)(view, out_dir) for f in formats}
    except BaseException:  # noqa: BLE001 - reported by the parent, which renders again
        written = None
    try:
        send.send(written)
    finally:
        send.close()
