"""``report.json``: the view, serialized deterministically (docs/report-json.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from migrate_lens.report._files import atomic_write

#: Elements of a long list encoded per call of the encoder when streaming.
_BATCH = 512

#: A MessagePack float64 (``0xcb`` then the IEEE-754 binary64 value, big-endian) whose 11
#: exponent bits are all set: a NaN or an infinity (sign bit either way).
_NON_FINITE_FLOAT64 = re.compile(rb"\xcb[\x7f\xff][\xf0-\xff]")


def plain_value(obj: Any) -> Any:
    """msgspec's hook for a value it does not encode itself: an instance of a subclass of
    ``str``, ``int`` or ``float`` (``torch.__version__`` is a ``TorchVersion(str)``) as the
    plain value, as the standard library's encoder writes it (the HTML payload's encoder uses
    it too, :func:`migrate_lens.report.html.json_for_script`). Raises ``TypeError`` otherwise."""
    for base in (str, int, float):
        if isinstance(obj, base):
            return base(obj)
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


_json = msgspec.json.Encoder(enc_hook=plain_value)
_msgpack = msgspec.msgpack.Encoder(enc_hook=plain_value)


def _refuse_non_finite(value: Any) -> None:
    """Raise ``ValueError`` when ``value`` holds a NaN or an infinity anywhere.

    msgspec writes them as ``null`` (valid JSON, silently the wrong value), so :func:`_encode`
    calls this for the pieces whose JSON holds ``null`` (on core 9 of 307 pieces, 1 of 33 MB).
    They are looked for in ``value``'s MessagePack encoding, where every Python float is
    ``0xcb`` and its 8 bytes: C speed (0.06 s for all of core's view, where a walk over its
    ~700k values in Python took 0.11 s and the standard library's encoder 0.3 s). A match may
    be a false alarm (the same bytes inside a string or an integer); the standard library's
    encoder with ``allow_nan=False`` then decides, exactly."""
    if _NON_FINITE_FLOAT64.search(_msgpack.encode(value)) is not None:
        json.JSONEncoder(allow_nan=False).encode(value)  # ValueError("Out of range float values ...")


def _encode(value: Any) -> bytes:
    """``value`` as compact JSON (UTF-8, non-ASCII kept, key order as built). Raises
    ``ValueError`` on NaN or infinity, ``TypeError`` on a value JSON cannot hold."""
    raw = _json.encode(value)
    if b"null" in raw:  # msgspec writes NaN and infinity as null: only then may one hide here
        _refuse_non_finite(value)
    return raw


def dumps(view: dict[str, Any]) -> bytes:
    """The view as compact JSON (UTF-8 bytes, key order as built, one line, final newline).

    Compact on purpose (``jq . report.json`` or ``python -m json.tool`` pretty-prints it): the
    standard library's ``indent=2`` runs its pure-Python encoder, 5.5 s of a 20 s warm scan of
    ``core`` in cProfile. Encoded by msgspec: 0.05 s on core's 33 MB against 0.27-0.31 s for
    the standard library's compact C encoder, with the same bytes except the spelling of
    floats in exponent form (``1e-05`` is written ``0.00001``, ``1e+16`` as ``1e16``: the same
    values; report floats are rounded efforts and money, which seldom need one). Raises
    ``ValueError`` on NaN or infinity (never written as ``null`` nor as invalid JSON)."""
    return _encode(view) + b"\n"


def iter_chunks(value: Any, depth: int = 3) -> Iterator[bytes]:
    """The bytes of :func:`dumps` (without the final newline) in pieces of at most about
    :data:`_BATCH` list elements, byte for byte the same once joined.

    Large reports hold hundreds of thousands of findings and graph edges: one buffer for the
    whole document was the scan's peak memory on a 5M-line tree. Dicts and lists down to
    ``depth`` levels are opened here; below that, and for each batch of list elements, the
    encoder runs on the sub-value. Raises ``ValueError`` on NaN or infinity."""
    if depth > 0 and isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        sep = b"{"
        for key, item in value.items():
            yield sep + _json.encode(key) + b":"
            yield from iter_chunks(item, depth - 1)
            sep = b","
        yield b"}"
    elif depth > 0 and isinstance(value, list) and len(value) > _BATCH:
        yield b"["
        for start in range(0, len(value), _BATCH):
            text = _encode(value[start:start + _BATCH])
            yield (b"," if start else b"") + text[1:-1]
        yield b"]"
    else:
        yield _encode(value)


def render(view: dict[str, Any], out_dir: Path) -> Path:
    """Write ``out_dir/report.json`` (streamed in pieces, see :func:`iter_chunks`), a report
    view's findings with each folded hazard of another category as its own entry
    and each traced call site of a helper's hazard (:func:`migrate_lens.report.view.listed_findings`); returns its path. Raises ``OSError`` when it cannot be written, ``ValueError`` on NaN or infinity
    (the previous report is left in place)."""
    path = out_dir / "report.json"
    if "findings" in view and "rules" in view:
        # each folded hazard of another category as its own entry (docs/report-json.md)
        from migrate_lens.report.view import written_view
        view = written_view(view)
    with atomic_write(path, binary=True) as fh:  # a failure half-way leaves the previous report in place
        for piece in iter_chunks(view):
            fh.write(piece)
        fh.write(b"\n")
    return path
