"""Persistent per-file cache of :class:`FileFacts` in SQLite.

Key: SHA-256 of the file's bytes + its relative path and module name (findings carry both)
+ tool version + analyzer code digest + rule catalog digest. A changed rule, a new version,
an edited analyzer module or an edited file is a miss. A cache that SQLite cannot read (corrupt, truncated, another format) is discarded
with a warning and rebuilt: it is never trusted. Values are pickled facts, zlib-compressed;
the cache directory belongs to the user, so pickle is safe here (never load a cache
someone else wrote).
"""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
import zlib
from functools import lru_cache
from pathlib import Path

from platformdirs import user_cache_dir

from migrate_lens import __version__
from migrate_lens.models import FileOutcome

SCHEMA = 1


def default_cache_dir() -> Path:
    """The per-user cache folder (``platformdirs.user_cache_dir('migrate-lens')``)."""
    return Path(user_cache_dir("migrate-lens"))


#: Modules whose code decides a file's facts: an edit to any of them (a development checkout
#: between releases) changes :func:`code_digest`, so stale facts are never served.
ANALYZER_MODULES = ("models.py", "catalog.py", "discover.py", "notebooks.py", "worker.py", "cache.py",
                    "analysis/__init__.py", "analysis/engine.py", "analysis/kinds.py", "analysis/matchers.py",
                    "analysis/bindings.py", "analysis/sites.py", "analysis/values.py", "analysis/visitor.py", "analysis/walk.py")


@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of the analyzer's own source files (:data:`ANALYZER_MODULES`; missing ones are
    skipped): about 150 KB read once per process."""
    h = hashlib.sha256()
    base = Path(__file__).resolve().parent
    for rel in ANALYZER_MODULES:
        try:
            h.update(rel.encode() + b"\0" + (base / rel).read_bytes())
        except OSError:
            h.update(rel.encode() + b"\0missing")
    return h.hexdigest()


def content_key(data_sha256: str, rel_path: str, module: str, catalog_digest: str) -> str:
    """Cache key of one file's analysis: schema, tool version, analyzer code digest, rule
    catalog digest, relative path, module name and the file's SHA-256."""
    raw = "\0".join((str(SCHEMA), __version__, code_digest(), catalog_digest, rel_path, module, data_sha256))
    return hashlib.sha256(raw.encode()).hexdigest()


def file_digest(data: bytes) -> str:
    """SHA-256 hex of a file's bytes (the cache key's content part)."""
    return hashlib.sha256(data).hexdigest()


def encode(outcome: FileOutcome) -> bytes:
    """A cache value: the outcome pickled (highest protocol) and zlib-compressed (level 1)."""
    return zlib.compress(pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL), 1)


def decode(blob: bytes) -> FileOutcome:
    """Inverse of :func:`encode`. Raises ``ValueError`` when ``blob`` is not an encoded
    :class:`FileOutcome` (corrupt or foreign data)."""
    try:
        value = pickle.loads(zlib.decompress(blob))
    except (zlib.error, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError) as exc:
        raise ValueError(f"undecodable cache value ({type(exc).__name__})") from None
    if not isinstance(value, FileOutcome):
        raise ValueError(f"cache value is a {type(value).__name__}, not a FileOutcome")
    return value


class FactsCache:
    """Open (creating if needed) the cache database in ``folder``.

    ``warnings`` collects one-line messages (e.g. a corrupt cache discarded) for the report.
    Raises ``OSError`` or ``sqlite3.Error`` when the folder cannot hold a database (not a
    folder, read-only, no space); the scan then runs without a cache.
    """

    def __init__(self, folder: Path) -> None:
        self.warnings: list[str] = []
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"facts-v{SCHEMA}.sqlite"
        self.conn = self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path)
            conn.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
            conn.execute("PRAGMA quick_check").fetchone()
            return conn
        except sqlite3.DatabaseError as exc:
            self.warnings.append(f"cache {self.path} unreadable ({exc}); discarded and rebuilt")
            self.path.unlink(missing_ok=True)
            conn = sqlite3.connect(self.path)
            conn.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
            return conn

    def get_many(self, keys: list[str]) -> dict[str, FileOutcome]:
        """Cached outcomes for ``keys`` (missing or undecodable entries are absent)."""
        out: dict[str, FileOutcome] = {}
        bad: list[str] = []
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self.conn.execute(f"SELECT key, value FROM facts WHERE key IN ({marks})", chunk).fetchall()
            except sqlite3.DatabaseError as exc:
                self.warnings.append(f"cache read failed ({exc}); treating as empty")
                return {}
            for key, blob in rows:
                try:
                    out[key] = decode(blob)
                except ValueError:
                    bad.append(key)
        if bad:
            self.warnings.append(f"{len(bad)} corrupt cache entries discarded")
            self.conn.executemany("DELETE FROM facts WHERE key = ?", [(k,) for k in bad])
            self.conn.commit()
        return out

    def put_many(self, items: list[tuple[str, FileOutcome]]) -> None:
        """Store outcomes (one transaction)."""
        self.put_encoded([(k, encode(v)) for k, v in items])

    def put_encoded(self, rows: list[tuple[str, bytes]]) -> None:
        """Store already encoded outcomes (:func:`encode`), one transaction."""
        if not rows:
            return
        try:
            self.conn.executemany("INSERT OR REPLACE INTO facts (key, value) VALUES (?, ?)", rows)
            self.conn.commit()
        except sqlite3.DatabaseError as exc:
            self.warnings.append(f"cache write failed ({exc}); results not cached")

    def close(self) -> None:
        """Close the database."""
        self.conn.close()
