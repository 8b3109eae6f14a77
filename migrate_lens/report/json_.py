"""``report.json``: the view, serialized deterministically (docs/report-json.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from migrate_lens.report._files import atomic_write

#: Elements of a long list encoded per call of the C encoder when streaming.
_BATCH = 512

_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def dumps(view: dict[str, Any]) -> str:
    """The view as compact JSON text (UTF-8, key order as built, one line, final newline).

    Compact on purpose: the standard library's C encoder only runs without ``indent``; with
    ``indent=2`` the pure-Python encoder took 5.5 s of a 20 s warm scan of ``core`` (41 MB of
    JSON, cProfile). ``jq . report.json`` or ``python -m json.tool`` pretty-prints it. Raises
    ``ValueError`` on NaN or infinity (never written as invalid JSON)."""
    return _encode(view) + "\n"


def iter_chunks(value: Any, depth: int = 3) -> Iterator[str]:
    """The text of :func:`dumps` (without the final newline) in pieces of at most about
    :data:`_BATCH` list elements, byte for byte the same once joined.

    Large reports hold hundreds of thousands of findings and graph edges: one string for the
    whole document (str of up to 4 bytes per character, then its UTF-8 copy) was the scan's
    peak memory on a 5M-line tree. Dicts and lists down to ``depth`` levels are opened here;
    below that, and for each batch of list elements, the C encoder runs on the sub-value.
    Raises ``ValueError`` on NaN or infinity."""
    if depth > 0 and isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        sep = "{"
        for key, item in value.items():
            yield sep + _encode(key) + ":"
            yield from iter_chunks(item, depth - 1)
            sep = ","
        yield "}"
    elif depth > 0 and isinstance(value, list) and len(value) > _BATCH:
        yield "["
        for start in range(0, len(value), _BATCH):
            text = _encode(value[start:start + _BATCH])
            yield ("," if start else "") + text[1:-1]
        yield "]"
    else:
        yield _encode(value)


def render(view: dict[str, Any], out_dir: Path) -> Path:
    """Write ``out_dir/report.json`` (streamed in pieces, see :func:`iter_chunks`); returns its
    path. Raises ``OSError`` when it cannot be written."""
    path = out_dir / "report.json"
    with atomic_write(path) as fh:  # a failure half-way leaves the previous report in place
        for piece in iter_chunks(view):
            fh.write(piece)
        fh.write("\n")
    return path
