"""The shortcuts taken for speed keep behaviour: unvalidated parse, paused GC, lazy site data,
fast pickling of the facts."""

from __future__ import annotations

import gc
import pickle

import libcst as cst
import pytest

from migrate_lens.analysis.sites import LazyData
from migrate_lens.analysis.walk import parse_cst
from migrate_lens.gctools import gc_paused
from migrate_lens.models import CallFact, FileFacts, FileOutcome, Finding, ImportFact, Skipped, Span

SOURCE = '''import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):  # comment\n        if x.sum() > 0:\n            x = (x + 1) * [2, 3][0]\n        return x\n'''


def test_parse_cst_builds_the_same_tree_and_restores_validation() -> None:
    tree = parse_cst(SOURCE)
    assert tree.code == SOURCE
    assert tree.deep_equals(cst.parse_module(SOURCE))
    # the stock hook is back: an invalid node is refused again
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


#: Many node classes at once (statements, operators, whitespace, comprehensions, patterns,
#: f-strings, type parameters), for the swapped constructors of :func:`parse_cst`.
RICH_SOURCE = '''# -*- coding: utf-8 -*-
"""doc"""
from __future__ import annotations
import a.b as c, d
from .e import (f as g, h)
x: int = 1; y = x if x else -x
@dec(1, *a, key=2, **kw)
async def fn[T](p, /, q: T = 3, *args, r, s=4, **kwargs) -> list[T]:
    global G
    async with ctx() as (u, v), other:
        async for i in aiter():
            await z
    w = [j ** 2 for j in range(10) if j % 2 if j > 1]
    m = {k: v for k, v in d.items()}; st = {*a, *b}
    ge = (t for t in w)
    lam = lambda a, *b, c=1, **d: a @ c
    if (n := len(w)) > 3 and not x or y is not None:
        w[1:2:3] += 1
    elif x in w: pass
    else:
        raise ValueError(f"{x!r:>{y}} {'n'}") from None
    try:
        yield from g
    except* (KeyError, TypeError) as e:
        del e
    finally:
        return [*w, \\
                1]
class K(Base, metaclass=M):
    def m(self):
        nonlocal_ = 1
        match self.v:
            case [1, 2, *rest] | (3 | 4) if rest: pass
            case {"a": 1, **kw}: pass
            case Point(x=0, y=_) as pt: pass
            case None: pass
        while True:
            break
        else:
            continue
        for _ in (): ...
        assert x, "m"
        return ~x << 2 >> 1 & 3 | 4 ^ 5 // 6 % 7
type Alias[U] = dict[str, U]
'''


def test_parse_cst_builds_the_same_tree_for_every_construct_and_restores_constructors() -> None:
    stock_init = cst.Name.__init__
    tree = parse_cst(RICH_SOURCE)
    assert tree.code == RICH_SOURCE
    assert tree.deep_equals(cst.parse_module(RICH_SOURCE))
    assert cst.Name.__init__ is stock_init
    # a node built after the parse gets the stock constructor: defaults and validation
    assert cst.Call(func=cst.Name("f")).args == ()
    with pytest.raises(cst.CSTValidationError):
        cst.Name("1x")


def test_unvalidated_constructors_cover_the_node_classes() -> None:
    from migrate_lens.analysis.walk import _fast_inits, _node_classes

    swapped = {cls for cls, _, _ in _fast_inits()}
    assert {cst.Name, cst.Call, cst.SimpleWhitespace, cst.FunctionDef, cst.Match} <= swapped
    # a class whose constructor is not a plain dataclass one keeps its own
    assert len(swapped) >= 0.9 * len(_node_classes())


def test_parse_cst_restores_validation_when_the_parse_fails() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        parse_cst("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("1x")


def test_gc_paused_restores_the_previous_state() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block does not turn it back on early
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # it was off before: stays off
    finally:
        gc.enable()


def test_lazy_data_computes_each_entry_once_on_first_read() -> None:
    calls: list[str] = []

    def make(name: str, value: object):
        def fn(source: object) -> object:
            assert source is extras  # each function reads the site's source object
            calls.append(name)
            return value
        return fn

    extras = object()
    data = LazyData({"args": (1,)}, extras, {"names": make("names", ("a",)), "text": make("text", "x.y")})
    assert data.get("args") == (1,) and calls == []
    assert "names" in data and calls == []
    assert data.get("names") == ("a",) and data["names"] == ("a",) and calls == ["names"]
    assert data["text"] == "x.y" and calls == ["names", "text"]
    assert data.get("missing", 0) == 0 and "missing" not in data
    with pytest.raises(KeyError):
        data["missing"]


def test_facts_pickle_round_trip() -> None:
    finding = Finding(code="ML101", severity="high", path="a.py", span=Span(1, 0, 1, 5), symbol="a.M.forward",
                      context="traced", message="m", snippet="x.add_(y)", traced_only=False)
    facts = FileFacts(path="a.py", module="a", sha256="0" * 64, lines=7, findings=(finding,),
                      imports=(ImportFact("torch", "", "torch", 1),), calls=(CallFact("a.f", "torch.cat", 3),))
    for outcome in (FileOutcome("a.py", facts=facts), FileOutcome("b.py", skipped=Skipped("b.py", "binary file"))):
        assert pickle.loads(pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)) == outcome


def _all_sources() -> list[tuple[str, str]]:
    from pathlib import Path

    from migrate_lens.catalog import load_catalog

    out = [(f"{r.code}-{i}", src) for r in load_catalog().rules
           for i, src in enumerate((*r.flagged_examples, *r.clean_examples))]
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    out += [(str(p.relative_to(fixtures)), p.read_text(encoding="utf-8")) for p in sorted(fixtures.rglob("*.py"))
            if "golden" not in p.parts]
    return out


def test_call_gates_never_drop_a_finding() -> None:
    """The per-callee gates and the per-site requirements (``MatcherSpec.keyword``/``flag``)
    are a pure speed-up: with every gate and requirement removed (each call-site rule tried on
    every call) the findings of every rule example and fixture file are the same."""
    from dataclasses import replace

    from migrate_lens.analysis.engine import ParseFailure, analyze_source, build_index
    from migrate_lens.catalog import load_catalog

    catalog = load_catalog()
    gated = build_index(catalog.rules)
    assert any(gate is not None for _, gate in gated.call_gates)
    ungated = replace(gated, call_gates=tuple((rule, None) for rule, _ in gated.call_gates))
    assert gated._table.needs
    ungated._table.needs = ()
    compared = 0
    for name, source in _all_sources():
        try:
            a = analyze_source(source, "m.py", "m", catalog, gated)
        except ParseFailure:
            continue
        b = analyze_source(source, "m.py", "m", catalog, ungated)
        assert a.findings == b.findings, name
        compared += bool(a.findings)
    assert compared > 100


def test_fixture_files_never_fall_back_to_libcst_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A position asked before its statement is entered (e.g. from ``visit_ClassDef`` for a
    line of the class body) switches the whole file to libcst's ``PositionProvider``, which
    costs more than the parse (seen: +45% per-file CPU on core from one such request). The
    analysis of the real-shaped fixture files (engine-v2 packages, cases, rule fixtures, golden
    stubs) must never take that path."""
    from pathlib import Path

    from migrate_lens.analysis import walk
    from migrate_lens.worker import analyze_bytes

    reasons: list[tuple[str, str]] = []
    stock = walk.Positions.fallback

    def record(self: walk.Positions, reason: str) -> None:
        reasons.append((current, reason))
        stock(self, reason)

    monkeypatch.setattr(walk.Positions, "fallback", record)
    root = Path(__file__).resolve().parents[1] / "fixtures"
    files = sorted(root.rglob("*.py"))
    assert len(files) >= 300 and any("engine-v2" in str(p) for p in files)
    for path in files:
        current = str(path.relative_to(root))
        rel = current.replace("\\", "/")
        analyze_bytes(path.read_bytes(), rel, rel[:-3].replace("/", "."))
    assert reasons == []

def test_call_variants_reevaluate_only_parts_that_read_the_hypothesis(monkeypatch) -> None:
    """A call's hypothesis variants re-evaluate only the parts whose first evaluation read a
    symbolic input of the hypothesis (``visitor._CallParts``): a pure speed-up, so on every rule
    example and fixture file each variant's kinds equal a full re-evaluation under it."""
    from migrate_lens.analysis import visitor as V
    from migrate_lens.analysis.engine import ParseFailure, analyze_source, build_index
    from migrate_lens.catalog import load_catalog

    partial = V.FileVisitor._call_kinds_under
    compared: list[int] = []

    def checked(self, node, parts):  # type: ignore[no-untyped-def]
        got = partial(self, node, parts)
        used = self.values.used
        assert got == V.FileVisitor._call_kinds(self, node)
        self.values.used = used
        compared.append(1)
        return got

    monkeypatch.setattr(V.FileVisitor, "_call_kinds_under", checked)
    catalog = load_catalog()
    index = build_index(catalog.rules)
    for _, source in _all_sources():
        try:
            analyze_source(source, "m.py", "m", catalog, index)
        except ParseFailure:
            continue
    assert len(compared) > 100


def test_skipped_call_variants_never_change_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call's variant sites are skipped when no candidate rule can tell them from the call's
    own site (``RuleIndex.variants_matter``: matchers that read no value kind, or that require
    a keyword the call does not pass): a pure speed-up, so with the variants of every call
    emitted the findings (with their ``requires``) of every rule example and fixture file are
    the same, and some calls did skip them."""
    from migrate_lens.analysis.engine import ParseFailure, RuleIndex, analyze_source, build_index
    from migrate_lens.catalog import load_catalog

    catalog = load_catalog()
    index = build_index(catalog.rules)
    stock = RuleIndex.variants_matter
    skipped: list[int] = []

    def counted(self: RuleIndex, name: str, method: str, keywords) -> bool:  # type: ignore[no-untyped-def]
        got = stock(self, name, method, keywords)
        skipped.append(not got)
        return got

    def always(self: RuleIndex, name: str, method: str, keywords) -> bool:  # type: ignore[no-untyped-def]
        return True

    compared = 0
    for name, source in _all_sources():
        monkeypatch.setattr(RuleIndex, "variants_matter", counted)
        try:
            a = analyze_source(source, "m.py", "m", catalog, index)
        except ParseFailure:
            continue
        monkeypatch.setattr(RuleIndex, "variants_matter", always)
        b = analyze_source(source, "m.py", "m", catalog, index)
        assert a.findings == b.findings, name
        compared += any(f.requires for f in a.findings)
    assert compared > 20 and sum(skipped) > 100
