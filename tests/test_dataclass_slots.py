"""``@dataclass`` config fields as injection slots (visitor ``_dataclass_slot``): a field's slot
index is its position among the generated ``__init__``'s positional parameters, which the
project graph matches against a constructor call's positional arguments."""

from __future__ import annotations

from migrate_lens.analysis.engine import analyze_source
from migrate_lens.catalog import load_catalog

CATALOG = load_catalog()

HEAD = ("import typing\nfrom dataclasses import dataclass, field, InitVar, KW_ONLY\nfrom typing import ClassVar, Callable\n"
        "import torch\nfrom torch import nn\n\n")


def _slots(body: str) -> list[tuple[str, str, int, str]]:
    facts = analyze_source(HEAD + body, "m.py", "m", CATALOG)
    return [(j.owner, j.attr, j.index, j.target) for j in facts.injections if j.kind == "slot"]


def test_positions_follow_the_generated_init() -> None:
    """ClassVar (subscripted, qualified or quoted) is no field and field(init=False) no
    parameter: before, each took a position, so ``Cfg(nn.GELU)`` bound the wrong field. An
    InitVar takes a position but is stored nowhere; fields after ``_: KW_ONLY`` and
    ``field(kw_only=True)`` are keyword-only (-1)."""
    body = ("@dataclass\nclass Cfg:\n"
            "    registry: ClassVar[dict] = {}\n    count: typing.ClassVar[int] = 0\n    tag: 'ClassVar[int]' = 1\n"
            "    scale: InitVar[float] = 1.0\n    hidden: int = field(init=False, default=0)\n"
            "    block: Callable[..., nn.Module] = nn.ReLU\n    act: Callable = field(default=nn.GELU)\n"
            "    late: Callable = field(default=None, kw_only=True)\n    depth: int = 2\n"
            "    _: KW_ONLY\n    norm: Callable = nn.LayerNorm\n")
    assert _slots(body) == [
        ("m.Cfg", "block", 1, ""), ("m.Cfg", "block", 1, "torch.nn.ReLU"),
        ("m.Cfg", "act", 2, ""), ("m.Cfg", "act", 2, "torch.nn.GELU"),
        ("m.Cfg", "late", -1, ""), ("m.Cfg", "depth", 3, ""),
        ("m.Cfg", "norm", -1, ""), ("m.Cfg", "norm", -1, "torch.nn.LayerNorm"),
    ]


def test_decorator_flags_and_lookalikes() -> None:
    body = ("@dataclass(frozen=True)\nclass Frozen:\n    print: Callable = nn.ReLU\n    list: int = 3\n\n"
            "@dataclass(kw_only=True)\nclass Kw:\n    block: Callable = nn.ReLU\n\n"
            "@dataclass(init=False)\nclass NoInit:\n    block: Callable = nn.ReLU\n\n"
            "def looks(c):\n    return c\n\n@looks\nclass NotOne:\n    block: Callable = nn.ReLU\n")
    assert _slots(body) == [
        ("m.Frozen", "print", 0, ""), ("m.Frozen", "print", 0, "torch.nn.ReLU"), ("m.Frozen", "list", 1, ""),
        ("m.Kw", "block", -1, ""), ("m.Kw", "block", -1, "torch.nn.ReLU"),
    ]


def test_ten_thousand_fields_are_linear() -> None:
    body = "@dataclass(frozen=True)\nclass Big:\n" + "".join(f"    f{i}: type = nn.ReLU\n" for i in range(10_000))
    slots = _slots(body)
    assert len(slots) == 20_000 and slots[-1] == ("m.Big", "f9999", 9999, "torch.nn.ReLU")


def test_other_generated_init_classes_are_slots_too() -> None:
    """The same construct spelled with attrs (``@define``, ``@attr.s(auto_attribs=True)``,
    ``attrs.field``) or as a ``typing.NamedTuple``: fields are constructor parameters in
    order, a default class is bound; classic ``@attr.s`` without ``auto_attribs`` declares
    fields with ``attr.ib()`` only, so its annotations are no slots."""
    body = ("import attr\nimport attrs\nfrom attrs import define\nfrom typing import NamedTuple\n\n"
            "@define\nclass A:\n    dim: int\n    block: Callable = nn.ReLU\n\n"
            "@attr.s(auto_attribs=True)\nclass B:\n    block: Callable = attrs.field(default=nn.GELU)\n\n"
            "@attr.s\nclass C:\n    block: Callable = nn.ReLU\n\n"
            "class D(NamedTuple):\n    width: int\n    block: Callable = nn.SiLU\n")
    assert _slots(body) == [
        ("m.A", "dim", 0, ""), ("m.A", "block", 1, ""), ("m.A", "block", 1, "torch.nn.ReLU"),
        ("m.B", "block", 0, ""), ("m.B", "block", 0, "torch.nn.GELU"),
        ("m.D", "width", 0, ""), ("m.D", "block", 1, ""), ("m.D", "block", 1, "torch.nn.SiLU"),
    ]
