"""The torch -> JAX API map (``rules/api_map.toml``, loaded by :mod:`migrate_lens.catalog`) as
the stub translator uses it: plain renames.

A row is applied when its kind is ``DIRECT`` or ``ARG_CHANGE`` and its ``args`` field is empty or
a comma-separated list of keyword renames (``dim->axis, keepdim->keepdims``). Rows of kind
``DIFFERENT_SEMANTICS`` / ``NO_EQUIVALENT`` (and rows whose ``args`` are prose) are never applied
blindly: their ``note`` goes into the TODO comment instead. Structural rewrites live in
:mod:`migrate_lens.stubs.tables`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from migrate_lens.catalog import ApiEntry, CatalogError, load_catalog

_RENAME = re.compile(r"^\s*([A-Za-z_]\w*)\s*->\s*([A-Za-z_]\w*)\s*$")


def parse_renames(args: str) -> dict[str, str] | None:
    """``"dim->axis, keepdim->keepdims"`` -> ``{"dim": "axis", "keepdim": "keepdims"}``; ``{}`` for
    ""; ``None`` when the field is not a list of renames."""
    if not args.strip():
        return {}
    out: dict[str, str] = {}
    for part in args.split(","):
        m = _RENAME.match(part)
        if m is None:
            return None
        out[m.group(1)] = m.group(2)
    return out


@dataclass
class ApiRenames:
    """Lookup over the API map rows, keyed by torch name (``torch.cat``, ``Tensor.view``)."""

    rows: dict[str, ApiEntry] = field(default_factory=dict)
    load_error: str = ""

    @classmethod
    def from_catalog(cls) -> ApiRenames:
        """Rows of the shipped catalog; an unreadable catalog gives no rows and ``load_error``."""
        try:
            return cls(dict(load_catalog().api_by_name()))
        except CatalogError as exc:
            return cls({}, str(exc))

    def rename(self, torch_name: str, args: list[tuple[str | None, str]]) -> str | None:
        """JAX call source for ``torch_name(args)`` if the map has an applicable rename row."""
        row = self.rows.get(torch_name)
        if row is None or row.kind not in ("DIRECT", "ARG_CHANGE") or not row.jax:
            return None
        renames = parse_renames(row.args)
        if renames is None:
            return None
        parts = [src if kw is None else f"{renames.get(kw, kw)}={src}" for kw, src in args]
        return f"{row.jax}({', '.join(parts)})"

    def note(self, torch_name: str) -> str:
        """The row's kind and note for a TODO message, or ""."""
        row = self.rows.get(torch_name)
        if row is None:
            return ""
        return f"API map: {row.kind}{' -> ' + row.jax if row.jax else ''}{': ' + row.note if row.note else ''}"
