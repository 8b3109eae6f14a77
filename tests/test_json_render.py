"""report.json streaming: the pieces join to exactly the one-shot encoding."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from migrate_lens.report.json_ import dumps, iter_chunks, render

_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                     st.text(max_size=8))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=1200), st.dictionaries(st.text(max_size=5), inner, max_size=6)), max_leaves=3000)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _values, max_size=6))
def test_chunks_join_to_one_shot_encoding(view: dict) -> None:
    assert "".join(iter_chunks(view)) + "\n" == dumps(view)


def test_large_lists_are_split_and_non_ascii_kept(tmp_path) -> None:
    view = {"findings": [{"message": "ün ✓", "line": i} for i in range(2000)],
            "graph": {"nodes": list(range(1500)), "edges": []}, "empty": {}, "int_keys": {1: "a"}}
    pieces = list(iter_chunks(view))
    assert len(pieces) > 8 and max(len(p) for p in pieces) < len(dumps(view)) / 3
    path = render(view, tmp_path)
    assert path.read_bytes() == dumps(view).encode("utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))["int_keys"] == {"1": "a"}


def test_nan_is_refused() -> None:
    with pytest.raises(ValueError):
        list(iter_chunks({"x": [math.nan] * 600}))
    with pytest.raises(ValueError):
        dumps({"x": math.inf})
