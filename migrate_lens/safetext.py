"""Text that is safe to print on a terminal: no control characters, no escapes.

File names, snippets, messages and config values come from the scanned tree and reach the
terminal through ``scan``, ``check``, ``baseline`` and ``stubs``. A name such as
``t\\x1b]0;x\\x07.py`` would set the terminal title (an OSC sequence), ``\\x1b[2J`` would clear
the screen, a bidirectional override (U+202E) reorders what the reader sees, and a non-UTF-8
name (decoded by Python with ``surrogateescape``) cannot even be encoded for output.
:func:`printable` replaces each such character by a visible escape.
"""

from __future__ import annotations

import re

#: C0 controls (newline and tab included: every printed field is one line), DEL, C1 controls,
#: lone surrogates (undecodable bytes of file names), bidirectional embeddings/overrides/isolates
#: (Trojan Source), and the Unicode line/paragraph separators.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    if c in _NAMED:
        return _NAMED[c]
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """``str(text)`` with every unsafe character (see :data:`_UNSAFE`) replaced by a Python-style
    escape (``\\x1b``, ``\\n``, ``\\u202e``; an undecodable file-name byte as ``\\xff``). Other
    text, non-ASCII letters included, is unchanged."""
    s = str(text)
    return _UNSAFE.sub(_escape, s) if _UNSAFE.search(s) else s


def is_utf8_name(name: str) -> bool:
    """False for a file name holding bytes that are not UTF-8 (Python decodes them to lone
    surrogates): such a name cannot be written to a UTF-8 report or hashed as text."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
