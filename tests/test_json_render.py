"""report.json encoding: the streamed pieces join to exactly the one-shot encoding, which is
the standard library's compact JSON of the same value (msgspec, docs/report-json.md)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from migrate_lens.report.json_ import dumps, iter_chunks, render

_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**63, max_value=2**64 - 1),
                     st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=1200), st.dictionaries(st.text(max_size=5), inner, max_size=6)), max_leaves=3000)


def _stdlib(value: object) -> bytes:
    return (json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n").encode("utf-8")


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _values, max_size=6))
def test_chunks_join_to_one_shot_encoding(view: dict) -> None:
    text = dumps(view)
    assert b"".join(iter_chunks(view)) + b"\n" == text
    assert json.loads(text) == json.loads(_stdlib(view))  # the same value as the standard library's


#: floats that ``repr`` writes without an exponent (|x| in [1e-4, 1e16) or zero)
_plain_floats = st.floats(min_value=-1e15, max_value=1e15).map(lambda x: x if abs(x) >= 1e-4 else 0.0)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=6), st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**63, max_value=2**64 - 1), _plain_floats,
              st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=700), st.dictionaries(st.text(max_size=5), inner, max_size=6)),
    max_leaves=2000), max_size=6))
def test_bytes_are_the_standard_librarys_but_for_exponent_floats(view: dict) -> None:
    """Strings (escapes, non-ASCII, control characters), integers, key order and floats without
    an exponent come out byte for byte as ``json.dumps(ensure_ascii=False)`` writes them."""
    assert dumps(view) == _stdlib(view)


def test_large_lists_are_split_and_non_ascii_kept(tmp_path) -> None:
    view = {"findings": [{"message": "ün ✓\u2028\x7f\x01", "line": i} for i in range(2000)],
            "graph": {"nodes": list(range(1500)), "edges": []}, "empty": {}, "int_keys": {1: "a"}}
    pieces = list(iter_chunks(view))
    assert len(pieces) > 8 and max(len(p) for p in pieces) < len(dumps(view)) / 3
    path = render(view, tmp_path)
    assert path.read_bytes() == dumps(view) == _stdlib(view)
    assert json.loads(path.read_text(encoding="utf-8"))["int_keys"] == {"1": "a"}


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, -math.nan])
def test_nan_is_refused(bad: float) -> None:
    with pytest.raises(ValueError):
        list(iter_chunks({"x": [bad] * 600}))
    with pytest.raises(ValueError):
        dumps({"x": bad})
    with pytest.raises(ValueError):
        dumps({"deep": [{"a": [1.5, {"b": bad}]}]})


def test_bytes_that_look_like_a_non_finite_float_are_no_false_alarm() -> None:
    """MessagePack bytes ``cb 7f f0`` inside an integer (what the NaN guard's quick check looks
    for) do not refuse a finite value: the exact check decides."""
    view = {"n": int.from_bytes(b"\x00\xcb\x7f\xf0\x00\x00\x00\x01", "big"), "f": [1.5, -0.0]}
    assert json.loads(dumps(view)) == view


def test_subclasses_of_str_int_float_are_written_as_their_plain_values() -> None:
    """As the standard library writes them (``torch.__version__`` is a ``str`` subclass, the
    probe puts it in the view); anything else JSON cannot hold is a TypeError."""
    class Version(str):
        pass

    class Count(int):
        pass

    class Hours(float):
        pass

    view = {"torch": Version("2.13.0"), "n": Count(3), "h": Hours(1.5), "tags": (Version("a"),)}
    assert dumps(view) == _stdlib(view) == b'{"torch":"2.13.0","n":3,"h":1.5,"tags":["a"]}\n'
    with pytest.raises(ValueError):
        dumps({"h": Hours(math.nan)})
    with pytest.raises(TypeError):
        dumps({"x": object()})
