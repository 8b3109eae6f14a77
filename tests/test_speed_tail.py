"""The main process's shortcuts give what the plain computations give: the slot-descriptor
``__init__`` (:mod:`migrate_lens.fastinit`) and the project graph's member-lookup prefilters
(:class:`migrate_lens.graph._Resolver` ``member_names``, ``_Builder.overrides``' method
owners), checked against the full walks on the fixture projects."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path

import pytest

from migrate_lens.catalog import load_catalog
from migrate_lens.fastinit import fast_init, replacer
from migrate_lens.graph import _EXTERNAL, _NN_MODULE_API, _Builder
from migrate_lens.config import Config

from test_graph import PROJECTS, analyze_tree


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class _Fast:
    a: str
    b: int = 3
    c: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class _Stock:
    a: str
    b: int = 3
    c: tuple[int, ...] = ()


def test_fast_init_builds_what_the_generated_init_builds() -> None:
    for args, kwargs in [(("x",), {}), (("x", 4), {}), (("x",), {"c": (1,)}), ((), {"a": "y", "b": 0})]:
        fast, stock = _Fast(*args, **kwargs), _Stock(*args, **kwargs)
        assert [getattr(fast, f) for f in ("a", "b", "c")] == [getattr(stock, f) for f in ("a", "b", "c")]
        assert repr(fast) == repr(stock).replace("_Stock", "_Fast")
    x = _Fast("x")
    assert x == _Fast("x") and hash(x) == hash(_Fast("x")) and x != _Fast("x", 4)
    assert dataclasses.replace(x, b=9) == _Fast("x", 9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.b = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Fast()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Fast("x", 1, (), 4)  # type: ignore[call-arg]


def test_replacer_is_dataclasses_replace() -> None:
    from migrate_lens.models import Finding, Span

    fd = Finding("ML1", "low", "p.py", Span(1, 2, 3, 4), "a.b", "function", "msg", "snip", requires=("p:x=T",))
    rep = replacer(Finding)
    for changes in ({}, {"requires": ()}, {"context": "traced", "traced_only": False, "severity": "high"}):
        assert rep(fd, **changes) == dataclasses.replace(fd, **changes)  # type: ignore[arg-type]
    assert replacer(_Fast)(_Fast("x"), b=2) == _Fast("x", 2)
    with pytest.raises(TypeError):
        rep(fd, nothing=1)


def test_fast_init_refuses_what_it_cannot_serve() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Post:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        a: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(slots=True)
    class Mutable:
        a: int

    for cls in (NoSlots, Post, Factory, Mutable):
        with pytest.raises(TypeError):
            fast_init(cls)


#: a template-method hierarchy across two files: overrides in subclasses, a mixin sibling, a
#: nested class member, a base outside the project
_HIERARCHY = {
    "pkg/base.py": ("import torch\nfrom torch import nn\n\n"
                    "class Base(nn.Module):\n    def forward(self, x):\n        return self.step(x) + self.norm(x)\n"
                    "    def step(self, x):\n        return x\n    class Inner:\n        pass\n\n"
                    "class Mixin:\n    def step(self, x):\n        return x * 2\n    def norm(self, x):\n        return x\n"),
    "pkg/subs.py": ("from pkg.base import Base, Mixin\n\n"
                    "class A(Base):\n    def step(self, x):\n        return x + 1\n\n"
                    "class B(Mixin, Base):\n    pass\n\n"
                    "class C(A):\n    def Inner(self):\n        return 0\n\n"
                    "class D(B, C):\n    def forward(self, x):\n        return self.step(x)\n"),
}


def _builders() -> list[_Builder]:
    from migrate_lens.analysis.engine import analyze_source

    catalog = load_catalog()
    out = []
    facts = tuple(analyze_source(src, rel, rel[:-3].replace("/", "."), catalog) for rel, src in sorted(_HIERARCHY.items()))
    b = _Builder(facts, catalog, Config())
    b.nodes()
    b.module_kinds()
    out.append(b)
    for root in sorted(p for p in PROJECTS.rglob("*") if p.is_dir() and any(p.glob("*.py")) and p.parent.name != "rules"):
        facts = tuple(sorted(analyze_tree(root, catalog), key=lambda f: f.path))
        b = _Builder(facts, catalog, Config())
        b.nodes()
        b.module_kinds()
        out.append(b)
    return out


class _Everything(defaultdict):  # type: ignore[type-arg]
    """A method-owner table that lets every name through (the walk without the prefilter)."""

    def get(self, key, default=None):  # type: ignore[no-untyped-def, override]
        return {"\0any"}


def test_member_and_override_prefilters_change_no_lookup() -> None:
    builders = _builders()
    assert builders
    checked = 0
    for b in builders:
        res = b.res
        classes = sorted(res.classes)
        names = sorted({*res.member_names, *_NN_MODULE_API, "nothing_here", "conv1"})
        fast = {(c, n): res.member(c, [n]) for c in classes for n in names}
        fast2 = {(c, n): res.member(c, [n, "x"]) for c in classes for n in names}
        overrides = {(c, n): b.overrides(c, n) for c in classes for n in names}
        # the same lookups without the prefilters: every name may be a member of any class
        res.member_names = set(names)
        res._member_cache.clear()
        b._overrides.clear()
        b.res.method_owners = _Everything(set)  # type: ignore[assignment]
        slow = {(c, n): res.member(c, [n]) for c in classes for n in names}
        slow2 = {(c, n): res.member(c, [n, "x"]) for c in classes for n in names}
        assert fast == slow and fast2 == slow2
        assert overrides == {(c, n): b.overrides(c, n) for c in classes for n in names}
        checked += len(fast)
        assert any(v == _EXTERNAL for v in fast.values()) or not classes
    assert checked > 100
    hierarchy = builders[0]
    assert hierarchy.overrides("pkg.base.Base", "step") == ["pkg.base.Mixin.step", "pkg.subs.A.step"]
