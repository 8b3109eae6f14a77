"""Persistent per-file cache of :class:`FileFacts` in SQLite.

Key: SHA-256 of the file's bytes + its relative path and module name (findings carry both)
+ tool version + analyzer code digest + rule catalog digest. A changed rule, a new version,
an edited analyzer module or an edited file is a miss. A cache that SQLite cannot read (corrupt, truncated, another format) is discarded
with a warning and rebuilt: it is never trusted. Values are plain data (MessagePack maps of
the facts' fields, type-checked on load, zlib-compressed), never pickles: a planted value can at
worst be wrong facts, never code. A folder or file not owned by the current user, writable by
group or others, or a symbolic link is refused (:func:`check_private`). A database another
process holds locked is waited for, then skipped; it is never deleted for being busy.
"""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
import stat
import zlib
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import msgspec

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
                    "analysis/bindings.py", "analysis/sites.py", "analysis/summaries.py", "analysis/values.py", "analysis/visitor.py",
                    "analysis/walk.py", "analysis/shape.py", "onefile.py", "severity.py", "fold.py",
                    "analysis/routes.py", "interproc.py", "fastinit.py", "rules_parsed.py", "jsonfile.py")


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


#: MessagePack codec of :class:`FileOutcome`: msgspec encodes a dataclass as a map of its fields
#: and decodes one in C, checking every field's type against the annotations. Decoding
#: ``core``'s 658 outcomes (170k fact objects) this way takes ~0.17 s against ~0.4 s for arrays
#: of the fields turned into objects by Python code (one process, GC paused); the values are
#: ~20% larger (5.9 MB compressed against 4.9 MB).
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(FileOutcome)


def encode(outcome: FileOutcome) -> bytes:
    """A cache value: the outcome as plain data (nested MessagePack maps of strings, numbers,
    booleans and arrays, one map per dataclass keyed by field name), zlib-compressed (level 1).
    Never a pickle: decoding a value can build only :mod:`migrate_lens.models` facts."""
    return zlib.compress(_encoder.encode(outcome), 1)


def decode(blob: bytes) -> FileOutcome:
    """Inverse of :func:`encode`. Raises ``ValueError`` when ``blob`` is not an encoded
    :class:`FileOutcome` (corrupt or foreign data: every field's type is checked by msgspec
    against the facts' annotations while the objects are built, and an outcome must hold
    exactly one of facts or a skip reason). A field missing from a map takes its default."""
    return _decode_raw(_inflate(blob))


def _inflate(blob: bytes) -> bytes | zlib.error:
    """``blob`` decompressed, or the ``zlib.error`` it raised (returned: see get_many's thread).
    A value that is not bytes (SQLite is dynamically typed: a planted TEXT or INTEGER value in
    the BLOB column) is an error too."""
    if not isinstance(blob, bytes):
        return zlib.error(f"cache value is {type(blob).__name__}, not bytes")
    try:
        return zlib.decompress(blob)
    except zlib.error as exc:
        return exc


def _decode_raw(raw: bytes | zlib.error) -> FileOutcome:
    """:func:`decode` after decompression (``raw``: :func:`_inflate`'s result)."""
    try:
        if isinstance(raw, zlib.error):
            raise raw
        out = _decoder.decode(raw)
    except (zlib.error, msgspec.DecodeError, TypeError, ValueError) as exc:  # (ValidationError is a DecodeError)
        raise ValueError(f"undecodable cache value ({type(exc).__name__})") from None
    if (out.facts is None) == (out.skipped is None):
        raise ValueError("cache value is not a FileOutcome (it needs facts or a skip reason, not both)")
    return out


def check_private(path: Path, what: str) -> None:
    """Refuse ``path`` (a cache folder or file) unless only the current user could have
    written it: owned by this user, not writable by group or others, not a symbolic link.
    Raises ``PermissionError`` with a one-line reason (saying how to fix it). Anything the
    caches read back (facts, chart memos) goes through this first: a cache someone else could
    write is input from someone else."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise PermissionError(f"{what} {path} is a symbolic link; not used")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise PermissionError(f"{what} {path} is not owned by the current user (uid {st.st_uid}); not used")
    if os.name == "posix" and st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):  # (Windows: no such bits)
        raise PermissionError(f"{what} {path} is writable by group or others (chmod go-w it); not used")


def private_folder(folder: Path) -> Path:
    """Create ``folder`` (and missing parents) readable and writable by this user only (0700),
    then :func:`check_private` it. Returns ``folder``. Raises ``OSError`` (``PermissionError``
    for a folder someone else could write)."""
    if not folder.is_dir():
        folder.mkdir(parents=True, mode=0o700, exist_ok=True)
    check_private(folder, "cache folder")
    return folder


#: Seconds a cache lookup or write waits for another process's lock before it gives up (the
#: scan then runs without the cache for that step; the database is never deleted for it).
BUSY_TIMEOUT_S = 30.0


def _is_busy(exc: sqlite3.Error) -> bool:
    """A lock held by another connection (SQLITE_BUSY / SQLITE_LOCKED), not corruption."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED (and their extended codes)
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class CacheBusy(sqlite3.OperationalError):
    """The cache database stayed locked by another process past the busy timeout."""


#: ``PRAGMA table_info(facts)`` of a cache this code wrote: (name, declared type, primary-key
#: position) per column. A table of another layout is discarded and rebuilt.
_FACTS_COLUMNS = [("key", "TEXT", 1), ("value", "BLOB", 0)]
#: Everything the database may hold: the ``facts`` table and its primary-key index.
_SCHEMA_OBJECTS = {("table", "facts"), ("index", "sqlite_autoindex_facts_1")}


class FactsCache:
    """Open (creating if needed) the cache database in ``folder``.

    ``warnings`` collects one-line messages (e.g. a corrupt cache discarded) for the report.
    The folder and the database file must be private to the current user
    (:func:`check_private`); new ones are created so. A database that another process keeps
    locked is waited for ``busy_timeout_s`` seconds (WAL journal: readers never wait for a
    writer), then skipped for that step with a warning; only a database SQLite reports as
    corrupt or not a database is discarded. Raises ``PermissionError`` for a folder or file
    someone else could write, ``OSError`` or ``sqlite3.Error`` when the folder cannot hold a
    database (not a folder, read-only, no space, busy at open); the scan then runs without a
    cache. A database whose ``facts`` table has another layout than this code writes (another
    tool's file of the same name, a hand edit) is discarded and rebuilt, as a corrupt one is.
    """

    def __init__(self, folder: Path, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.warnings: list[str] = []
        self.busy_timeout_s = busy_timeout_s
        private_folder(folder)
        self.path = folder / f"facts-v{SCHEMA}.sqlite"
        self.conn = self._open()

    def _connect(self) -> sqlite3.Connection:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PermissionError(f"cache file {self.path} is a symbolic link; not used") from None
            raise
        os.close(fd)
        check_private(self.path, "cache file")
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout_s)
        try:
            conn.execute("PRAGMA journal_mode=WAL").fetchone()
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                conn.close()
                raise CacheBusy(f"cache {self.path} is busy (locked by another process)") from None
            # read-only medium, or a file system without shared memory: keep the rollback journal
        conn.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
        columns = [(row[1], row[2].upper(), row[5]) for row in conn.execute("PRAGMA table_info(facts)")]
        if columns != _FACTS_COLUMNS:
            # a database of this name written by something else (another tool, a hand edit, a
            # forged file): every read and write would fail and the cache would never fill
            conn.close()
            raise sqlite3.DatabaseError(f"foreign table layout {columns}")
        extra = sorted(row for row in conn.execute("SELECT type, name FROM sqlite_master") if row not in _SCHEMA_OBJECTS)
        if extra:
            # a trigger would run its SQL on each of our writes (rewriting the facts we store),
            # a view or another table is not ours either
            conn.close()
            raise sqlite3.DatabaseError(f"foreign schema objects {extra[:3]}")
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            conn = self._connect()
            result = conn.execute("PRAGMA quick_check").fetchone()
            if result != ("ok",):
                conn.close()
                raise sqlite3.DatabaseError(f"quick_check: {result[0] if result else 'no result'}")
            return conn
        except sqlite3.DatabaseError as exc:
            if _is_busy(exc):
                raise CacheBusy(f"cache {self.path} is busy (locked by another process for over "
                                f"{self.busy_timeout_s:g} s)") from None
            self.warnings.append(f"cache {self.path} unreadable ({exc}); discarded and rebuilt")
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            return self._connect()

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
                why = "busy (locked by another process)" if _is_busy(exc) else str(exc)
                self.warnings.append(f"cache read failed ({why}); treating as empty")
                return {}
            # zlib releases the GIL: a thread inflates the next values while this one decodes
            # (core's 658 values: 39 MB of MessagePack from 6 MB; the inflating was a third of
            # the cache read, now off the critical path when a core is free)
            with ThreadPoolExecutor(max_workers=1) as inflater:
                for (key, _), raw in zip(rows, inflater.map(_inflate, [blob for _, blob in rows])):
                    try:
                        out[key] = _decode_raw(raw)
                    except ValueError:
                        bad.append(key)
        if bad:
            self.warnings.append(f"{len(bad)} corrupt cache entries discarded")
            try:
                self.conn.executemany("DELETE FROM facts WHERE key = ?", [(k,) for k in bad])
                self.conn.commit()
            except sqlite3.DatabaseError:
                self.conn.rollback()
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
            try:
                self.conn.rollback()
            except sqlite3.Error:
                pass
            why = "busy (locked by another process)" if _is_busy(exc) else str(exc)
            self.warnings.append(f"cache write failed ({why}); results not cached")

    def close(self) -> None:
        """Close the database."""
        self.conn.close()
