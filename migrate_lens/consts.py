"""Project flag constants: module-level ``DEBUG = False`` switches that traced code tests.

``if flags.DEBUG: print(attn.mean().item())`` in a forward is dead code in every run that does
not switch the flag on, and a port drops it: its host sync is no obstacle. Whether the flag is
switched on is a project-wide question (``flags.DEBUG = args.debug`` in a training script,
``global DEBUG`` in a function), so the main process answers it from the files' text before the
pool (no parse, no import), as it reads star-import hubs (:mod:`migrate_lens.stars`): a
constant is a module-level ``NAME = False`` (``True``, ``None``, an integer) in upper case,
bound once in its file and assigned nowhere else in the project (no ``<x>.NAME = ...``,
``global NAME`` or ``setattr(..., "NAME", ...)``). Each file is analysed with the constants
whose names it mentions (:func:`file_constants`), covered by its cache key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: ``NAME = False`` (optionally annotated) at the start of a line, upper-case name (searched in
#: ``b"\n" + data``: a pattern that starts with a literal is found by a fast scan, ``^`` is not)
_CONST = re.compile(rb"\n([A-Z][A-Z0-9_]*)[ \t]*(?::[ \t]*[\w.]+[ \t]*)?=[ \t]*(False|True|None|0|1)[ \t]*(?:#[^\n]*)?(?=\r?\n|$)")
#: assignments to the name from elsewhere: an attribute write, ``global``, ``setattr``
_ATTR_WRITE = re.compile(rb"\.([A-Z][A-Z0-9_]*)[ \t]*(?:=(?!=)|\+=|-=|\|=)")
_GLOBAL = re.compile(rb"global[ \t]+([\w, \t]+)")
_SETATTR = re.compile(rb"setattr\([^,\n]+,[ \t]*['\"]([A-Z][A-Z0-9_]*)['\"]")
_VALUES = {b"False": "False", b"True": "True", b"None": "None", b"0": "0", b"1": "1"}


def module_constants(files: Mapping[str, bytes]) -> dict[str, str]:
    """``module.NAME`` -> its literal (``"False"``, ``"True"``, ``"None"``, ``"0"``, ``"1"``) for
    the project's flag constants (see the module docstring). ``files``: module name -> bytes.
    Never raises on bad bytes."""
    written: set[bytes] = set()
    found: dict[str, str] = {}
    for module, data in files.items():
        if b"=" not in data:
            continue
        written.update(m.group(1) for m in _ATTR_WRITE.finditer(data))
        if b"setattr(" in data:
            written.update(m.group(1) for m in _SETATTR.finditer(data))
        if b"global" in data:
            for m in _GLOBAL.finditer(data):
                written.update(n.strip().encode() for n in m.group(1).decode("ascii", "replace").split(","))
        text = b"\n" + data
        for m in _CONST.finditer(text):
            name = m.group(1)
            # bound once at module level (`NAME = ...` at the start of a line, any value)
            if len(re.findall(rb"\n" + name + rb"[ \t]*(?::[^=\n]*)?=(?!=)", text)) == 1:
                found[f"{module}.{name.decode()}"] = _VALUES[m.group(2)]
    return {k: v for k, v in sorted(found.items()) if k.rsplit(".", 1)[1].encode() not in written}


def by_name(constants: Mapping[str, str]) -> dict[str, list[tuple[str, str]]]:
    """The constants indexed by their last name component (for :func:`file_constants`)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for k, v in constants.items():
        out.setdefault(k.rsplit(".", 1)[1], []).append((k, v))
    return out


def file_constants(data: bytes, index: Mapping[str, list[tuple[str, str]]]) -> tuple[tuple[str, str], ...]:
    """The constants (:func:`by_name` index) whose names ``data`` mentions, as sorted (dotted
    name, literal) pairs: the worker's argument; () for none."""
    if not index:
        return ()
    words = [w for w in index if w.encode() in data and re.search(rb"\b" + w.encode() + rb"\b", data)]
    return tuple(sorted(pair for w in words for pair in index[w]))
