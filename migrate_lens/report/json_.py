"""``report.json``: the view, serialized deterministically (docs/report-json.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def dumps(view: dict[str, Any]) -> str:
    """The view as pretty JSON text (2-space indent, UTF-8, key order as built, final newline)."""
    return json.dumps(view, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def render(view: dict[str, Any], out_dir: Path) -> Path:
    """Write ``out_dir/report.json``; returns its path."""
    path = out_dir / "report.json"
    path.write_text(dumps(view), encoding="utf-8")
    return path
