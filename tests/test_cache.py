"""The per-file facts cache: hits only for the same bytes, path, module, version and catalog;
a corrupt or foreign cache is discarded with a warning, never trusted."""

from __future__ import annotations

import pickle
import sqlite3
import zlib
from pathlib import Path

from migrate_lens.cache import FactsCache, content_key
from migrate_lens.models import FileFacts, FileOutcome, Skipped


def _outcome(path: str = "a.py") -> FileOutcome:
    return FileOutcome(path, facts=FileFacts(path=path, module="a", sha256="0" * 64, lines=3))


def test_round_trip_and_key_parts(tmp_path: Path) -> None:
    cache = FactsCache(tmp_path)
    key = content_key("d" * 64, "a.py", "a", "cat1")
    cache.put_many([(key, _outcome())])
    assert cache.get_many([key]) == {key: _outcome()}
    others = [content_key("e" * 64, "a.py", "a", "cat1"), content_key("d" * 64, "b.py", "a", "cat1"),
              content_key("d" * 64, "a.py", "b", "cat1"), content_key("d" * 64, "a.py", "a", "cat2")]
    assert len({key, *others}) == 5
    assert cache.get_many(others) == {}
    cache.close()
    reopened = FactsCache(tmp_path)
    assert reopened.get_many([key]) == {key: _outcome()} and reopened.warnings == []
    reopened.close()


def test_corrupt_database_is_discarded_and_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "facts-v1.sqlite").write_bytes(b"this is not sqlite" * 100)
    cache = FactsCache(tmp_path)
    assert len(cache.warnings) == 1 and "discarded and rebuilt" in cache.warnings[0]
    key = content_key("d" * 64, "a.py", "a", "c")
    cache.put_many([(key, _outcome())])
    assert cache.get_many([key]) == {key: _outcome()}
    cache.close()


def test_corrupt_or_foreign_entries_are_dropped(tmp_path: Path) -> None:
    cache = FactsCache(tmp_path)
    good, garbled, foreign = (content_key(c * 64, "a.py", "a", "c") for c in "abc")
    cache.put_many([(good, _outcome())])
    conn = sqlite3.connect(cache.path)
    conn.execute("INSERT INTO facts VALUES (?, ?)", (garbled, b"\x78\x9c garbage"))
    conn.execute("INSERT INTO facts VALUES (?, ?)", (foreign, zlib.compress(pickle.dumps({"not": "an outcome"}))))
    conn.commit()
    conn.close()
    assert cache.get_many([good, garbled, foreign]) == {good: _outcome()}
    assert cache.warnings == ["2 corrupt cache entries discarded"]
    assert cache.get_many([garbled, foreign]) == {}
    cache.close()


def test_skipped_outcomes_round_trip(tmp_path: Path) -> None:
    cache = FactsCache(tmp_path)
    key = content_key("f" * 64, "x.py", "x", "c")
    skipped = FileOutcome("x.py", skipped=Skipped("x.py", "syntax error at line 2: invalid syntax"))
    cache.put_many([(key, skipped)])
    assert cache.get_many([key]) == {key: skipped}
    cache.close()


def test_scan_reuses_cache_and_misses_on_edit(tmp_path: Path) -> None:
    from migrate_lens.config import Config
    from migrate_lens.pipeline import scan

    root = tmp_path / "tree"
    root.mkdir()
    (root / "m.py").write_text("import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                               "        return x.item()\n", encoding="utf-8")
    (root / "n.py").write_text("import os\n", encoding="utf-8")
    first = scan(root, Config(), jobs=1, cache_dir=tmp_path / "c")
    second = scan(root, Config(), jobs=1, cache_dir=tmp_path / "c")
    assert (first.cache_hits, second.cache_hits) == (0, 2)
    assert first.files == second.files
    with (root / "m.py").open("a", encoding="utf-8") as fh:
        fh.write("# edited\n")
    third = scan(root, Config(), jobs=1, cache_dir=tmp_path / "c")
    assert third.cache_hits == 1
    assert [f.findings for f in third.files] == [f.findings for f in first.files]


def test_interrupted_scan_caches_the_files_that_finished(tmp_path: Path) -> None:
    """Ctrl-C during the pool (``KeyboardInterrupt`` in the main process) still stores the
    files already analyzed, so the next scan resumes instead of starting over."""
    import pytest

    from migrate_lens.config import Config
    from migrate_lens.pipeline import scan

    root = tmp_path / "tree"
    root.mkdir()
    for i in range(5):
        (root / f"m{i}.py").write_text(f"import torch\n\n\ndef f{i}(x):\n    return x.item() + {i}\n", encoding="utf-8")

    def interrupt_after_two(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        scan(root, Config(), jobs=1, cache_dir=tmp_path / "c", progress=interrupt_after_two)
    resumed = scan(root, Config(), jobs=1, cache_dir=tmp_path / "c")
    assert resumed.cache_hits == 2 and len(resumed.files) == 5
    fresh = scan(root, Config(), jobs=1, use_cache=False)
    assert [f.findings for f in resumed.files] == [f.findings for f in fresh.files]


def test_key_changes_with_analyzer_code(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from migrate_lens import cache as cache_mod

    before = content_key("d" * 64, "a.py", "a", "c")
    monkeypatch.setattr(cache_mod, "code_digest", lambda: "another analyzer")
    assert content_key("d" * 64, "a.py", "a", "c") != before
    assert len(cache_mod.ANALYZER_MODULES) == len(set(cache_mod.ANALYZER_MODULES))
    base = Path(cache_mod.__file__).parent
    assert all((base / m).is_file() for m in cache_mod.ANALYZER_MODULES)


def test_database_with_a_foreign_table_layout_is_rebuilt(tmp_path: Path) -> None:
    """A database of the cache's name whose ``facts`` table has other columns (another tool's
    file, a hand edit) would fail every read and write: it is discarded and rebuilt, and the
    cache fills again."""
    path = FactsCache(tmp_path).path
    path.unlink()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE facts (k INTEGER, payload TEXT, extra REAL)")
    conn.execute("INSERT INTO facts VALUES (1, 'x', 2.0)")
    conn.commit()
    conn.close()
    cache = FactsCache(tmp_path)
    assert len(cache.warnings) == 1 and "foreign table layout" in cache.warnings[0] \
        and "discarded and rebuilt" in cache.warnings[0]
    key = content_key("d" * 64, "a.py", "a", "c")
    cache.put_many([(key, _outcome())])
    assert cache.get_many([key]) == {key: _outcome()} and len(cache.warnings) == 1
    cache.close()
    reopened = FactsCache(tmp_path)
    assert reopened.warnings == [] and reopened.get_many([key]) == {key: _outcome()}
    reopened.close()
