"""The shipped rule catalog's TOML files parsed ahead of time (``_rules_parsed.json``).

Parsing the 148 TOML files of ``rules/`` with the standard library's pure-Python ``tomllib``
took ~60 ms of every process that loads the catalog (a scan's main process: ~2% of core's
warm rescan). ``python -m migrate_lens.rules_parsed`` writes, for each shipped file, its
parsed table as JSON keyed by the SHA-256 of the file's bytes; :func:`load_tables` gives the
tables and the catalog takes the table of a file whose bytes have an entry, so an edited (or any other) file has none and
is parsed from its TOML as before. The tables go through the same validation as parsed TOML
(:func:`migrate_lens.catalog.parse_rule`). The JSON file is package data, written by this
module and checked current by a test; it holds only what JSON can spell (a TOML file with
dates is left out and parsed from its text).
"""

from __future__ import annotations

import hashlib
import json
import sys
import tomllib
from pathlib import Path
from typing import Any

PATH = Path(__file__).parent / "_rules_parsed.json"


def load_tables() -> dict[str, Any]:
    """{SHA-256 hex of a TOML file's bytes: its parsed table}, read anew on each call (the
    caller owns the tables); {} without a readable file."""
    try:
        data = json.loads(PATH.read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def digest(raw: bytes) -> str:
    """The key of a TOML file's bytes: their SHA-256 hex."""
    return hashlib.sha256(raw).hexdigest()


def build(folder: Path) -> dict[str, Any]:
    """The JSON file's content for the TOML files of ``folder``: {digest: parsed table} of each
    file whose table JSON spells exactly (no dates or times), sorted by digest."""
    out: dict[str, Any] = {}
    for path in sorted(folder.glob("*.toml")):
        raw = path.read_bytes()
        table = tomllib.loads(raw.decode("utf-8"))
        try:
            if json.loads(json.dumps(table)) == table:
                out[digest(raw)] = table
        except (TypeError, ValueError):
            continue  # a date or time: parsed from the TOML
    return dict(sorted(out.items()))


def text(folder: Path) -> str:
    """The JSON file's text for ``folder`` (compact, one table per line, ASCII)."""
    tables = build(folder)
    lines = [f"{json.dumps(k)}:{json.dumps(v, sort_keys=True, separators=(',', ':'))}" for k, v in tables.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> None:
    """``python -m migrate_lens.rules_parsed``: rewrite the JSON file for the shipped catalog."""
    from migrate_lens.catalog import default_rules_dir

    PATH.write_text(text(default_rules_dir()), encoding="ascii")
    print(PATH, file=sys.stderr)


if __name__ == "__main__":
    main()
