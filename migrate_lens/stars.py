"""Star-import hubs: the names a project module's ``from <hub> import *`` binds.

fastai-style code imports its libraries once, in a hub (``fastai/imports.py``: ``import torch``,
``import torch.nn as nn``, ``import torch.nn.functional as F``), and every other file takes them
with ``from ..torch_basics import *``. Python binds every public name of the hub there; a file
analysed alone would see ``nn.Dropout``, ``F.gelu`` and ``class Block(nn.Sequential)`` as
unknown names (no layer rule, no module class). The per-file stage never reads another file,
so the main process reads the hubs' import statements here, from their text (no parse, no
import), before the pool: each file that star-imports a project module is analysed with the
names that module binds by its own imports (:func:`star_bindings`), and its cache key covers
them (:func:`bindings_key`).

Only module-level ``import a.b as c`` / ``import a`` / ``from a import b as c`` statements of the
hub count (written at the start of a line, possibly inside a top-level ``try``/``if``, so any
indentation), followed through the hub's own star imports of other project modules; names
starting with ``_`` are left out, and a hub with ``__all__`` binds only the names it lists, as
Python does. What the hub defines itself (classes, functions) the project graph already
resolves through the star import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: ``from <module> import *`` (relative dots kept)
_STAR = re.compile(rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]*\*", re.MULTILINE)
#: ``import a.b as c, d`` at the start of a line
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w. \t,]+?)[ \t]*(?:#.*)?$", re.MULTILINE)
#: ``from a import (b as c, d)`` at the start of a line (one line, or parenthesized over several)
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#*]+)", re.MULTILINE)
_ALL = re.compile(r"^__all__\s*[+]?=", re.MULTILINE)
#: the list or tuple literal of an ``__all__ =`` / ``__all__ +=`` statement
_ALL_LIST = re.compile(r"^__all__\s*[+]?=\s*[\[(]([^\])]*)[\])]", re.MULTILINE)
_QUOTED = re.compile(r"""['"]([A-Za-z_]\w*)['"]""")
#: a line that opens a function or class body (or decorates one) at column 0
_DEF_START = ("def ", "async def ", "class ", "@")


def module_level(text: str) -> str:
    """``text`` without the bodies of its top-level functions and classes (an ``import cupy as
    np`` inside a function binds nothing a star import takes); statements under a top-level
    ``try``/``if`` and continuation lines of a module-level statement are kept."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if line[:1] not in ("", " ", "\t", "#", ")", "]"):
            inside = line.startswith(_DEF_START)
        if not inside:
            out.append(line)
    return "\n".join(out)
#: how many hubs deep a chain of star imports is followed
MAX_DEPTH = 4


def absolute(module: str, is_package: bool, level: int, name: str) -> str:
    """The absolute module of ``from <level dots><name> import ...`` written in ``module``
    (``is_package``: the file is a package's ``__init__``); "" when the dots climb above the
    top-level package."""
    if level == 0:
        return name
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(parts) or (level - 1 == len(parts) and not name):
        return ""
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, name] if name else base)


def star_imports(module: str, is_package: bool, data: bytes) -> list[str]:
    """The absolute modules ``data`` (a file's bytes) star-imports, in order."""
    if b"import *" not in data and b"import*" not in data:
        return []
    out: list[str] = []
    for m in _STAR.finditer(data):
        target = absolute(module, is_package, len(m.group(1)), m.group(2).decode("ascii", "replace"))
        if target and target not in out:
            out.append(target)
    return out


def _own_bindings(module: str, is_package: bool, text: str) -> dict[str, str]:
    """The names ``text``'s import statements bind: local name -> dotted target."""
    out: dict[str, str] = {}
    for m in _IMPORT.finditer(text):
        for item in m.group(1).split(","):
            words = item.split()
            if len(words) == 3 and words[1] == "as":
                out[words[2]] = words[0]
            elif len(words) == 1 and words[0]:
                top = words[0].split(".")[0]
                out[top] = top
    for m in _FROM.finditer(text):
        source = absolute(module, is_package, len(m.group(1)), m.group(2))
        if not source:
            continue
        for item in m.group(3).strip("() \t\r\n").replace("\n", ",").split(","):
            words = item.split()
            if len(words) == 3 and words[1] == "as":
                out[words[2]] = f"{source}.{words[0]}"
            elif len(words) == 1 and words[0].isidentifier():
                out[words[0]] = f"{source}.{words[0]}"
    return out


def star_bindings(files: Mapping[str, tuple[bool, bytes]]) -> dict[str, dict[str, str]]:
    """For each project module some file star-imports: the names that star import binds
    through the module's own import statements (and its star imports of other project modules,
    up to :data:`MAX_DEPTH` deep), as local name -> dotted target, public names only (those of
    ``__all__`` when the module defines one). ``files``: module name -> (is a package's
    ``__init__``, the file's bytes). Never raises on bad text (undecodable bytes are replaced)."""
    wanted: list[str] = []
    for module, (is_package, data) in files.items():
        for hub in star_imports(module, is_package, data):
            if hub in files and hub not in wanted:
                wanted.append(hub)
    cache: dict[str, dict[str, str]] = {}

    def of(hub: str, depth: int) -> dict[str, str]:
        if hub in cache:
            return cache[hub]
        cache[hub] = {}  # (a cycle of star imports binds nothing more)
        is_package, data = files[hub]
        text = data.decode("utf-8", "replace")
        got: dict[str, str] = {}
        if depth < MAX_DEPTH:
            for inner in star_imports(hub, is_package, data):
                if inner in files:
                    got.update(of(inner, depth + 1))
        got.update(_own_bindings(hub, is_package, module_level(text)))
        got = {k: v for k, v in got.items() if not k.startswith("_")}
        if _ALL.search(text):
            # (only the names the `__all__` literals list; one that is not a literal: none)
            listed = {n for m in _ALL_LIST.finditer(text) for n in _QUOTED.findall(m.group(1))}
            got = {k: v for k, v in got.items() if k in listed}
        cache[hub] = got
        return got

    return {hub: of(hub, 0) for hub in sorted(wanted)}


def bindings_key(bindings: Mapping[str, Mapping[str, str]]) -> str:
    """A stable text of the star bindings a file is analysed with, for its cache key ("" for
    none)."""
    if not bindings:
        return ""
    return ";".join(f"{hub}:" + ",".join(f"{k}={v}" for k, v in sorted(names.items()))
                    for hub, names in sorted(bindings.items()))


def file_bindings(module: str, is_package: bool, data: bytes,
                  hubs: Mapping[str, Mapping[str, str]]) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """What one file's star imports bind (:data:`migrate_lens.models.StarBindings`, the worker's
    argument), from the project's hubs (:func:`star_bindings`): () when it star-imports none."""
    if not hubs:
        return ()
    got = {h: hubs[h] for h in star_imports(module, is_package, data) if hubs.get(h)}
    return tuple((h, tuple(sorted(names.items()))) for h, names in sorted(got.items()))


def hub_paths(module: str, root_package: str) -> tuple[str, str]:
    """The two relative paths a project module may live at under a scan root whose dotted
    package name is ``root_package`` ("" when the root is no package): ``a/b.py`` and
    ``a/b/__init__.py``; ("", "") for a module outside the root's package."""
    if root_package:
        if module == root_package:
            return "", "__init__.py"
        if not module.startswith(root_package + "."):
            return "", ""
        module = module[len(root_package) + 1:]
    rel = module.replace(".", "/")
    return f"{rel}.py", f"{rel}/__init__.py"
