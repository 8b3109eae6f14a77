"""The native parse without import machinery (migrate_lens/analysis/nativeparse.py) gives the
stock tree, raises the stock errors and falls back to the stock parse on any surprise."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from migrate_lens.analysis import nativeparse, walk

REPO = Path(__file__).resolve().parents[1]


def test_fast_path_is_on_and_equal_to_stock() -> None:
    assert nativeparse.enable() is True
    assert nativeparse.__dict__["__builtins__"] is nativeparse._FAST_BUILTINS
    for path in sorted((REPO / "migrate_lens" / "analysis").glob("*.py"))[:6]:
        text = path.read_text(encoding="utf-8")
        fast, stock = walk.parse_cst(text), cst.parse_module(text)
        assert fast.deep_equals(stock) and fast.code == text


def test_syntax_error_is_the_stock_error() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        walk.parse_cst("def f(:\n    pass\n")


def test_a_failing_fast_path_falls_back_to_the_stock_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing_module(source: str) -> cst.Module:
        raise KeyError("libcst._some_module_not_loaded")  # what PyImport_Import raises then

    monkeypatch.setattr(nativeparse, "parse_module", missing_module)
    tree = walk.parse_cst("x = torch.zeros(3)\n")
    assert tree.code == "x = torch.zeros(3)\n"
