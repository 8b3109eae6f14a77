"""libcst's native parser, called from a module whose frame skips CPython's import machinery.

libcst's Rust parser converts every node of the tree it built into a Python object through
``PyModule::import(py, "libcst")`` and a call of the node class found there (its generated
``TryIntoPy``): one ``PyImport_Import`` per node, ~4x10^5 on 1/20 of ``core``. ``PyImport_Import``
(CPython ``Python/import.c``) takes ``__import__`` from the ``__builtins__`` entry of the
*calling frame's globals*, calls it "for side-effect of import", discards its result and returns
``sys.modules[name]``. The calling frame during the native parse is :func:`parse_module` below,
so this module's ``__builtins__`` entry decides which ``__import__`` runs: :func:`enable` sets
it to a mapping whose ``__import__`` is ``"".format`` (a C callable that accepts the five
arguments and returns at once), since ``libcst`` is always in ``sys.modules`` by then. Functions
keep the builtins they were created with (``func_builtins``, CPython 3.10+), so nothing in this
module loses a builtin. Measured on every 3rd file of ``core``, one process, alternated runs:
the parse 8.45-8.6 s -> 8.0-8.35 s CPU (about -4%).

If the native parser ever imports a module that is not loaded yet, ``PyImport_Import`` finds
nothing in ``sys.modules`` and raises ``KeyError``; :func:`migrate_lens.analysis.walk.parse_cst`
then parses again through ``libcst.parse_module``, so a changed libcst is only slower, never
wrong. :func:`enable` checks the fast path against the stock one on a sample first and leaves
it off when they differ.
"""

from __future__ import annotations

from typing import Any

import libcst as cst
from libcst import native as _native

#: What ``PyImport_Import`` reads as this module's builtins once :func:`enable` ran.
_FAST_BUILTINS: dict[str, Any] = {"__import__": "".format}

_SAMPLE = 'import torch\n\n\n@dec(1)\nclass A(B, metaclass=M):\n    """Doc."""\n    x: int = 1\n\n' \
          '    def f(self, *a, k=2, **kw):\n        if a and (b := k):  # c\n            return [i for i in a]\n' \
          '        s = f"{k!r:>3}" + r"\\n"\n        with x as y, z:\n            yield from y[1:2, ...]\n'


def parse_module(source: str) -> cst.Module:
    """The native parse of ``source`` (a ``str``, encoding recorded as UTF-8, as
    ``libcst.parse_module`` does for a ``str``). Raises ``ParserSyntaxError`` for invalid
    syntax and, once :func:`enable` ran, ``KeyError`` if libcst needs a module that is not
    loaded (the caller then parses through ``libcst.parse_module``)."""
    return _native.parse_module(source, "utf-8")  # type: ignore[no-any-return]


_enabled: bool | None = None


def enable() -> bool:
    """Swap this module's ``__builtins__`` for :data:`_FAST_BUILTINS` once per process, after
    checking on a sample that the fast parse equals the stock one (``deep_equals`` and the
    same code). Returns whether the fast path is on. Never raises."""
    global _enabled
    if _enabled is None:
        stock = cst.parse_module(_SAMPLE)
        real = globals()["__builtins__"]
        globals()["__builtins__"] = _FAST_BUILTINS
        try:
            fast = parse_module(_SAMPLE)
            _enabled = fast.deep_equals(stock) and fast.code == _SAMPLE
        except Exception:  # noqa: BLE001 - any surprise leaves the stock path on
            _enabled = False
        if not _enabled:
            globals()["__builtins__"] = real
    return _enabled
