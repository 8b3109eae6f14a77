"""Baseline file format and count-aware matching (migrate_lens.baseline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from migrate_lens.baseline import (
    BASELINE_VERSION,
    DEFAULT_BASELINE_NAME,
    Baseline,
    BaselineEntry,
    BaselineError,
    build_baseline,
    dumps,
    loads,
    read_baseline,
    split_new,
    write_baseline,
)

ROWS = [
    ("fp-b", "ML301", "pkg/b.py", "pkg.b.Block.forward", "x.add_(y)"),
    ("fp-a", "ML101", "pkg/a.py", "pkg.a.Gate.forward", "if torch.all(keep == 1): return x"),
    ("fp-b", "ML301", "pkg/b.py", "pkg.b.Block.forward", "x.add_(y)"),
]


def test_build_counts_duplicates_and_sorts_by_path_symbol_code() -> None:
    baseline = build_baseline(ROWS)
    assert baseline.entries == (
        BaselineEntry("fp-a", 1, "ML101", "pkg/a.py", "pkg.a.Gate.forward", "if torch.all(keep == 1): return x"),
        BaselineEntry("fp-b", 2, "ML301", "pkg/b.py", "pkg.b.Block.forward", "x.add_(y)"),
    )
    assert baseline.counts() == {"fp-a": 1, "fp-b": 2}
    assert baseline.total == 3


def test_dumps_is_deterministic_and_order_independent() -> None:
    text = dumps(build_baseline(ROWS))
    assert text == dumps(build_baseline(list(reversed(ROWS))))
    assert text.endswith("\n")
    doc = json.loads(text)
    assert doc["tool"] == "migrate-lens" and doc["version"] == BASELINE_VERSION
    assert [(r["fingerprint"], r["count"]) for r in doc["findings"]] == [("fp-a", 1), ("fp-b", 2)]
    assert "time" not in text and "date" not in text  # nothing that changes between runs


def test_roundtrip_through_a_file(tmp_path: Path) -> None:
    path = tmp_path / DEFAULT_BASELINE_NAME
    baseline = build_baseline(ROWS)
    write_baseline(baseline, path)
    assert read_baseline(path) == baseline
    assert b"\r\n" not in path.read_bytes()


def test_loads_merges_repeated_fingerprints() -> None:
    doc = {
        "tool": "migrate-lens",
        "version": 1,
        "findings": [{"fingerprint": "fp", "count": 1}, {"fingerprint": "fp", "count": 2, "code": "ML101"}],
    }
    assert loads(json.dumps(doc)).counts() == {"fp": 3}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "not JSON"),
        ('{"tool": "bandit", "version": 1, "findings": []}', "not a migrate-lens baseline"),
        ('{"tool": "migrate-lens", "version": 99, "findings": []}', "version 99 is not supported"),
        ('{"tool": "migrate-lens", "version": 1, "findings": {}}', '"findings" must be a list'),
        ('{"tool": "migrate-lens", "version": 1, "findings": [{"count": 1}]}', "findings[0]: needs fingerprint"),
        ('{"tool": "migrate-lens", "version": 1, "findings": [{"fingerprint": "x", "count": 0}]}', "positive integer"),
        (
            '{"tool": "migrate-lens", "version": 1, "findings": [{"fingerprint": "x", "count": true}]}',
            "positive integer",
        ),
        (
            '{"tool": "migrate-lens", "version": 1, "findings": [{"fingerprint": "x", "count": 1, "line": 3}]}',
            "and only",
        ),
    ],
    ids=[
        "not-json",
        "other-tool",
        "future-version",
        "findings-not-list",
        "no-fingerprint",
        "zero-count",
        "bool-count",
        "unknown-key",
    ],
)
def test_loads_rejects_malformed_files_with_the_file_name(text: str, problem: str) -> None:
    with pytest.raises(BaselineError) as err:
        loads(text, "ci/.migrate-lens-baseline.json")
    assert str(err.value).startswith("ci/.migrate-lens-baseline.json: ")
    assert problem in str(err.value)


def test_read_missing_file_is_a_baseline_error(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="cannot read"):
        read_baseline(tmp_path / "absent.json")


def test_split_new_forgives_the_first_n_occurrences_only() -> None:
    baseline = build_baseline(ROWS)  # fp-a x1, fp-b x2
    flags, forgiven = split_new(["fp-b", "fp-a", "fp-b", "fp-b", "fp-c", "fp-a"], baseline)
    assert flags == [False, False, False, True, True, True]
    assert forgiven == 3


def test_split_new_with_empty_baseline_marks_everything_new() -> None:
    assert split_new(["a", "a"], Baseline()) == ([True, True], 0)
