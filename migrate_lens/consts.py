"""Project flag constants: module-level ``DEBUG = False`` switches that traced code tests.

``if flags.DEBUG: print(attn.mean().item())`` in a forward is dead code in every run that does
not switch the flag on, and a port drops it: its host sync is no obstacle. Whether the flag is
switched on is a project-wide question (``flags.DEBUG = args.debug`` in a training script,
``global DEBUG`` in a function), so the main process answers it from the files' text before the
pool (no parse, no import), as it reads star-import hubs (:mod:`migrate_lens.stars`): a
constant is a module-level ``NAME = False`` (``True``, ``None``, an integer) in upper case,
bound once in its file and assigned nowhere else in the project (no ``<x>.NAME = ...``,
``global NAME`` or ``setattr(..., "NAME", ...)``). Each file is analysed with the constants
whose names it mentions (:func:`file_constants`), covered by its cache key. ``check`` (the
pre-commit hook, which reads the changed files only) passes no constants: there a flag-guarded
line is reported as any other line, never left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: ``NAME = False`` (optionally annotated) at the start of a line, upper-case name (searched in
#: ``b"\n" + data``: a pattern that starts with a literal is found by a fast scan, ``^`` is not)
_CONST = re.compile(rb"\n([A-Z][A-Z0-9_]*)[ \t]*(?::[ \t]*[\w.]+[ \t]*)?=[ \t]*(False|True|None|0|1)[ \t]*(?:#[^\n]*)?(?=\r?\n|$)")
#: an upper-case name written to anywhere, at any indentation: ``NAME = ...``, ``x.NAME = ...``,
#: augmented, a keyword argument or parameter default ``NAME=...``, a tuple target ``NAME, B = ...``
#: (a name then commas before ``=`` on its line), a ``global`` statement
_WRITE = re.compile(rb"([A-Z][A-Z0-9_]*)[ \t]*(?:(?::[^=\n]*|,[^=\n()#]*)?=(?!=)|[-+*/|&^]=)")
_GLOBAL = re.compile(rb"global[ \t]+([\w, \t]+)")
#: an upper-case name in quotes (``globals()["DEBUG"] = on``, ``setattr(flags, "DEBUG", on)``
#: however it is wrapped): it may be written by name
_QUOTED = re.compile(rb"""['"]([A-Z][A-Z0-9_]*)['"]""")
_WORD = re.compile(rb"[A-Z][A-Z0-9_]+")
_VALUES = {b"False": "False", b"True": "True", b"None": "None", b"0": "0", b"1": "1"}


def module_constants(files: Mapping[str, bytes]) -> dict[str, str]:
    """``module.NAME`` -> its literal (``"False"``, ``"True"``, ``"None"``, ``"0"``, ``"1"``) for
    the project's flag constants: a module-level ``NAME = <literal>`` that is the only write to
    that name anywhere in the project (any file, any indentation: no rebinding in a ``try``/``if``,
    no ``x.NAME = ...``, keyword ``NAME=...``, tuple target, ``global NAME``) and whose name is
    never quoted (``globals()["NAME"]``, ``setattr(m, "NAME", v)``). ``files``: module name ->
    bytes. Two passes over the files, each a fixed number of patterns per file (linear in the
    project's size; the second looks for the candidates' names only); never raises on bad bytes."""
    found: dict[str, tuple[bytes, str]] = {}
    for module, data in files.items():
        if b"= " in data or b"=F" in data or b"=N" in data or b"=0" in data or b"=1" in data or b"=T" in data:
            for m in _CONST.finditer(b"\n" + data):
                found[f"{module}.{m.group(1).decode()}"] = (m.group(1), _VALUES[m.group(2)])
    if not found:
        return {}
    names = sorted({name for name, _ in found.values()})
    if len(names) <= 256:
        # (one pattern over the candidates' names: a scan far cheaper than trying every position)
        alt = b"|".join(re.escape(n) for n in names)
        # (patterns that start with the names' literals are found by a fast scan; a name inside a
        # longer one, `XDEBUG = 1`, counts as a write too: a constant is only ever dropped)
        write = re.compile(rb"(" + alt + rb")[ \t]*(?:(?::[^=\n]*|,[^=\n()#]*)?=(?!=)|[-+*/|&^]=)")
        quote = re.compile(rb"(" + alt + rb""")['"]""")
    else:
        write, quote = _WRITE, _QUOTED
    writes: dict[bytes, int] = {}
    quoted: set[bytes] = set()
    for data in files.values():
        quoted.update(m.group(1) for m in quote.finditer(data) if data[m.start() - 1:m.start()] in (b"'", b'"'))
        for m in write.finditer(data):
            writes[m.group(1)] = writes.get(m.group(1), 0) + 1
        if b"global" in data:
            for m in _GLOBAL.finditer(data):
                for n in m.group(1).split(b","):
                    writes[n.strip()] = writes.get(n.strip(), 0) + 2
    return {k: v for k, (name, v) in sorted(found.items()) if writes.get(name) == 1 and name not in quoted}


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
    if len(index) <= 32:  # (a few names: a substring scan each, then the word itself)
        words = {w for w in index if w.encode() in data and re.search(rb"\b" + w.encode() + rb"\b", data)}
    else:  # (many: the file's upper-case words once)
        words = {w.decode() for w in _WORD.findall(data)} & index.keys()
    return tuple(sorted(pair for w in words for pair in index[w]))
