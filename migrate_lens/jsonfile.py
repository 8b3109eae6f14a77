"""JSON that migrate-lens reads back from disk or the command line, never trusted to be
well-formed or written by us: baselines, ``probe.json``, a saved ``report.json``, notebooks,
chart memos, ``verify --kwargs``.

One function, :func:`parse_json`, with one error type whose ``str()`` is a one-line reason, so
every reader turns any malformed input into its own one-line error instead of a traceback. The
stdlib parser raises several types for bad input, not all of them ``JSONDecodeError``:
``UnicodeDecodeError`` (bytes that are not UTF-8), ``RecursionError`` (arrays nested some
thousands deep), ``ValueError`` (an integer literal longer than CPython's 4300-digit
int-from-string limit).
"""

from __future__ import annotations

import json
from typing import Any


class JsonFileError(ValueError):
    """Text that is not a JSON document; ``str()`` is the reason in a few words (no path)."""


def parse_json(data: bytes | str) -> Any:
    """``data`` (bytes: UTF-8, an optional UTF-8 byte-order mark skipped; or text) parsed as
    JSON. Raises :class:`JsonFileError`, whose reason always starts with "not": ``not UTF-8
    (byte offset N)``, ``not JSON (<what> at line L, column C)``, ``not JSON this reader takes
    (nested too deeply)`` / ``(an integer of more than 4300 digits)``."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JsonFileError(f"not UTF-8 (byte offset {exc.start})") from None
    else:
        text = data[1:] if data.startswith("\ufeff") else data
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonFileError(f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise JsonFileError("not JSON this reader takes (nested too deeply)") from None
    except ValueError:  # CPython's int-from-string digit limit
        raise JsonFileError("not JSON this reader takes (an integer of more than 4300 digits)") from None
