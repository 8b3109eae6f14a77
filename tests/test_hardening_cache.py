"""The per-file cache is untrusted input (issue 18, items 1 and 8): it holds plain data and never
runs code, a folder or file someone else could have written is refused, and a database another
process holds locked is waited for and then skipped, never deleted."""

from __future__ import annotations

import os
import pickle
import sqlite3
import threading
import time
import zlib
from pathlib import Path

import pytest

from migrate_lens.cache import FactsCache, content_key, decode, encode
from migrate_lens.config import Config
from migrate_lens.models import (CallFact, ClassFact, FileFacts, FileOutcome, Finding, FunctionFact, ImportFact,
                                 RuleError, Skipped, Span, SubmoduleFact, Suppression)
from migrate_lens.pipeline import scan

NOBODY = 65534


def _rich_outcome() -> FileOutcome:
    finding = Finding("ML101", "high", "a.py", Span(3, 4, 3, 12), "a.f", "traced", "msg", "x.item()",
                      traced_only=True, suppressed="fixme", suppress_reason="later")
    facts = FileFacts(path="a.py", module="a", sha256="0" * 64, lines=9, findings=(finding,),
                      imports=(ImportFact("torch", "", "torch", 1),), calls=(CallFact("a.f", "torch.relu", 4),),
                      classes=(ClassFact("a.M", 2, 8, ("torch.nn.Module",), True, 6),),
                      functions=(FunctionFact("a.M.forward", 3, 8, "traced", True),),
                      submodules=(SubmoduleFact("a.M", "fc", "torch.nn.Linear", 4),),
                      suppressions=(Suppression(3, "fixme", ("ML101",), "later"),),
                      traced_entries=("a.M.forward",), rule_errors=(RuleError("ML999", "boom"),), mentions_torch=True)
    return FileOutcome("a.py", facts=facts)


def test_cache_values_are_plain_data_not_pickles() -> None:
    for outcome in (_rich_outcome(), FileOutcome("b.py", skipped=Skipped("b.py", "binary file", transient=False))):
        blob = encode(outcome)
        assert decode(blob) == outcome
        with pytest.raises(Exception):
            pickle.loads(zlib.decompress(blob))


class _Planted:
    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {os.environ['ML_TEST_MARKER']}",))


def test_planted_pickle_in_cache_never_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Repro: a pickle whose ``__reduce__`` calls ``os.system`` stored under the key the scan
    computes ran during ``scan``."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "m.py").write_text("import torch\nx = torch.ones(2)\n", encoding="utf-8")
    cache_dir = tmp_path / "c"
    scan(root, Config(), jobs=1, cache_dir=cache_dir)
    marker = tmp_path / "PWNED"
    monkeypatch.setenv("ML_TEST_MARKER", str(marker))
    evil = zlib.compress(pickle.dumps(_Planted()), 1)
    db = next(cache_dir.glob("facts-*.sqlite"))
    conn = sqlite3.connect(db)
    conn.execute("UPDATE facts SET value = ?", (evil,))
    conn.commit()
    conn.close()
    again = scan(root, Config(), jobs=1, cache_dir=cache_dir)
    assert not marker.exists()
    assert [f.path for f in again.files] == ["m.py"] and again.cache_hits == 0


def test_decode_refuses_wrong_shapes() -> None:
    import msgspec

    for bad in ([1, 2, 3], ["a.py", None, ["a.py", 5, False]], {"path": "a.py"}, "x", None,
                ["a.py", ["a.py", "a", "0", "many lines", [], [], [], [], [], [], [], [], [], True], None],
                {"path": "a.py", "facts": {"path": "a.py", "module": "a", "sha256": "0", "lines": "many"}},
                {"path": "a.py", "facts": {"path": "a.py", "module": "a", "sha256": "0", "lines": 1,
                                           "findings": [{"code": "ML101"}]}},
                {"path": "a.py", "skipped": {"path": "a.py", "reason": "binary"},
                 "facts": {"path": "a.py", "module": "a", "sha256": "0", "lines": 1}}):
        with pytest.raises(ValueError):
            decode(zlib.compress(msgspec.msgpack.encode(bad), 1))


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to chown to another user")
def test_cache_folder_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    FactsCache(folder).close()
    os.chown(folder, NOBODY, NOBODY)
    with pytest.raises(PermissionError, match="not owned by"):
        FactsCache(folder)
    os.chown(folder, os.getuid(), os.getgid())
    db = next(folder.glob("facts-*.sqlite"))
    os.chown(db, NOBODY, NOBODY)
    with pytest.raises(PermissionError, match="not owned by"):
        FactsCache(folder)


@pytest.mark.parametrize("target", ["folder", "file"])
@pytest.mark.parametrize("mode_bits", [0o020, 0o002])
def test_group_or_other_writable_cache_is_refused(tmp_path: Path, target: str, mode_bits: int) -> None:
    folder = tmp_path / "c"
    FactsCache(folder).close()
    path = folder if target == "folder" else next(folder.glob("facts-*.sqlite"))
    os.chmod(path, path.stat().st_mode | mode_bits)
    with pytest.raises(PermissionError, match="writable by"):
        FactsCache(folder)


def _tree_and_refused_cache(tmp_path: Path) -> tuple[Path, Path]:
    """A one-file tree and a cache folder the cache refuses (writable by others)."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "m.py").write_text("import torch\n", encoding="utf-8")
    folder = tmp_path / "c"
    folder.mkdir(mode=0o700)
    os.chmod(folder, 0o777)
    return root, folder


def test_refused_cache_means_a_scan_without_cache_and_a_warning(tmp_path: Path) -> None:
    root, folder = _tree_and_refused_cache(tmp_path)
    result = scan(root, Config(), jobs=1, cache_dir=folder)
    assert [f.path for f in result.files] == ["m.py"]
    assert any("writable by" in w and "scanned without it" in w for w in result.warnings)
    assert not list(folder.iterdir())


def test_new_cache_folder_and_file_are_private(tmp_path: Path) -> None:
    old = os.umask(0o002)  # a umask that would make the folder group-writable
    try:
        FactsCache(tmp_path / "new" / "c").close()
    finally:
        os.umask(old)
    folder = tmp_path / "new" / "c"
    assert folder.stat().st_mode & 0o077 == 0
    assert all(p.stat().st_mode & 0o077 == 0 for p in folder.iterdir())


def test_symlinked_cache_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    FactsCache(folder).close()
    db = next(folder.glob("facts-*.sqlite"))
    elsewhere = tmp_path / "elsewhere.sqlite"
    db.rename(elsewhere)
    db.symlink_to(elsewhere)
    with pytest.raises(PermissionError, match="symbolic link"):
        FactsCache(folder)


def test_busy_database_is_not_corrupt(tmp_path: Path) -> None:
    """Repro: a cache another process held locked for over 5 s was deleted as corrupt."""
    folder = tmp_path / "c"
    cache = FactsCache(folder)
    key = content_key("d" * 64, "a.py", "a", "c")
    cache.put_many([(key, _rich_outcome())])
    cache.close()
    db = next(folder.glob("facts-*.sqlite"))
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        busy = FactsCache(folder, busy_timeout_s=0.3)
        got = busy.get_many([key])
        busy.put_many([(content_key("e" * 64, "b.py", "b", "c"), _rich_outcome())])
        busy.close()
        assert time.monotonic() - started < 5
        assert got == {key: _rich_outcome()}  # WAL: a reader never waits for the writer's lock
        assert len(busy.warnings) == 1 and "cache write failed (busy" in busy.warnings[0]
        assert not any("discarded" in w for w in busy.warnings)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert db.exists()
    again = FactsCache(folder)
    assert again.get_many([key]) == {key: _rich_outcome()} and again.warnings == []
    again.close()


def test_busy_database_is_waited_for(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    FactsCache(folder).close()
    db = next(folder.glob("facts-*.sqlite"))
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    timer = threading.Timer(0.5, lambda: (holder.execute("COMMIT"), holder.close()))
    timer.start()
    try:
        cache = FactsCache(folder, busy_timeout_s=10)
        key = content_key("d" * 64, "a.py", "a", "c")
        cache.put_many([(key, _rich_outcome())])
        assert cache.get_many([key]) == {key: _rich_outcome()} and cache.warnings == []
        cache.close()
    finally:
        timer.join()


_FORGERIES = {
    "unknown severity": lambda d: [f.__setitem__("severity", "bogus") for f in d["facts"]["findings"]],
    "unknown rule code": lambda d: [f.__setitem__("code", "ML999") for f in d["facts"]["findings"]],
    "other file's path": lambda d: (d.__setitem__("path", "other.py"), d["facts"].__setitem__("path", "other.py")),
}


@pytest.mark.parametrize("forgery", sorted(_FORGERIES))
def test_well_typed_but_foreign_cache_entry_is_reanalyzed(tmp_path: Path, forgery: str) -> None:
    """A cache value that msgspec accepts (right types) but that cannot be this file's facts
    (a severity or rule code the catalog lacks, another file's path) aborted the scan in the
    estimate or renderer (ValueError / KeyError) before; it is now a miss with a warning."""
    import msgspec

    root = tmp_path / "proj"
    root.mkdir()
    (root / "m.py").write_text("import torch\n\n\ndef f(x):\n    x.add_(1)\n    return x.item()\n")
    cache_dir = tmp_path / "cache"
    clean = scan(root, Config(), jobs=1, cache_dir=cache_dir)
    assert clean.files[0].findings
    db = sqlite3.connect(cache_dir / "facts-v1.sqlite")
    rows = db.execute("SELECT key, value FROM facts").fetchall()
    assert rows
    for key, blob in rows:
        data = msgspec.msgpack.decode(zlib.decompress(blob))
        _FORGERIES[forgery](data)
        db.execute("UPDATE facts SET value = ? WHERE key = ?", (zlib.compress(msgspec.msgpack.encode(data)), key))
    db.commit()
    db.close()
    again = scan(root, Config(), jobs=1, cache_dir=cache_dir)
    assert again.cache_hits == 0
    assert [(f.code, f.severity, f.path) for f in again.files[0].findings] == \
        [(f.code, f.severity, f.path) for f in clean.files[0].findings]
    assert any("did not fit their file" in w for w in again.warnings), again.warnings
    third = scan(root, Config(), jobs=1, cache_dir=cache_dir)  # the good entry replaced the forged one
    assert third.cache_hits == 1 and not any("did not fit" in w for w in third.warnings)


def test_warnings_reach_report_json_under_quiet(tmp_path: Path) -> None:
    """``--quiet`` prints nothing but errors; the warnings it hides are kept in report.json's
    summary, so a refused cache is never lost silently."""
    import json

    from click.testing import CliRunner

    from migrate_lens.cli import main

    root, folder = _tree_and_refused_cache(tmp_path)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["scan", str(root), "-q", "-j", "1", "--cache-dir", str(folder), "-o", str(out), "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "warning" not in res.output
    warnings = json.loads((out / "report.json").read_text(encoding="utf-8"))["summary"]["warnings"]
    assert any("scanned without it" in w for w in warnings), warnings


@pytest.mark.parametrize("value", ["text", 5, 1.5])
def test_cache_value_of_another_sqlite_type_is_a_corrupt_entry(tmp_path: Path, value: object) -> None:
    """Repro: a planted TEXT (or INTEGER) value in the BLOB column raised TypeError out of
    zlib (traceback, no report); SQLite columns are dynamically typed."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "m.py").write_text("import torch\n\n\ndef f(x):\n    x.add_(1)\n")
    cache_dir = tmp_path / "cache"
    clean = scan(root, Config(), jobs=1, cache_dir=cache_dir)
    db = sqlite3.connect(cache_dir / "facts-v1.sqlite")
    db.execute("UPDATE facts SET value = ?", (value,))
    db.commit()
    db.close()
    again = scan(root, Config(), jobs=1, cache_dir=cache_dir)
    assert again.cache_hits == 0 and "1 corrupt cache entries discarded" in again.warnings
    assert [f.code for f in again.files[0].findings] == [f.code for f in clean.files[0].findings]


@pytest.mark.parametrize("extra", [
    "CREATE TRIGGER t AFTER INSERT ON facts BEGIN UPDATE facts SET value = x'00'; END",
    "CREATE TABLE other (x)",
    "CREATE VIEW v AS SELECT key FROM facts",
])
def test_cache_database_holding_foreign_schema_objects_is_rebuilt(tmp_path: Path, extra: str) -> None:
    """A planted trigger would run its SQL on each of our writes (here: rewriting every stored
    value); any object besides the facts table is not ours. The database is discarded and
    rebuilt with a warning, and the next scan hits the cache."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "m.py").write_text("import torch\n\n\ndef f(x):\n    x.add_(1)\n")
    cache_dir = tmp_path / "cache"
    scan(root, Config(), jobs=1, cache_dir=cache_dir)
    db = sqlite3.connect(cache_dir / "facts-v1.sqlite")
    db.execute(extra)
    db.commit()
    db.close()
    again = scan(root, Config(), jobs=1, cache_dir=cache_dir)
    assert any("foreign schema objects" in w and "discarded and rebuilt" in w for w in again.warnings), again.warnings
    third = scan(root, Config(), jobs=1, cache_dir=cache_dir)
    assert third.cache_hits == 1 and not third.warnings
