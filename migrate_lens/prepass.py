"""The main process's one look across files before the pool: what each file is analysed with
beyond its own text (:mod:`migrate_lens.stars`: names its star imports bind;
:mod:`migrate_lens.consts`: the project's flag constants it mentions), read from the files'
bytes without parsing them, and the text its cache key adds for it."""

from __future__ import annotations

from collections.abc import Mapping

from migrate_lens.consts import by_name, file_constants, module_constants
from migrate_lens.models import StarBindings
from migrate_lens.stars import bindings_key, file_bindings, star_bindings

#: what one file is analysed with: (star bindings, (dotted constant, literal) pairs)
FileContext = tuple[StarBindings, tuple[tuple[str, str], ...]]


def file_contexts(files: Mapping[str, tuple[str, bytes]]) -> dict[str, FileContext]:
    """``files``: relative path -> (module, bytes) of every readable file of the scan. Returns
    relative path -> its :data:`FileContext` (both parts empty for most files)."""
    hubs = star_bindings({mod: (rel.endswith("__init__.py"), data) for rel, (mod, data) in files.items()})
    flags = by_name(module_constants({mod: data for mod, data in files.values()}))
    return {rel: (file_bindings(mod, rel.endswith("__init__.py"), data, hubs), file_constants(data, flags))
            for rel, (mod, data) in files.items()}


def context_key(context: FileContext) -> str:
    """The text a file's cache key adds for its context ("" for none)."""
    star, consts = context
    out = "|" + bindings_key({h: dict(names) for h, names in star}) if star else ""
    return out + ("|" + ",".join(f"{k}={v}" for k, v in consts) if consts else "")
