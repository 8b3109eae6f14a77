"""Copies priced as copies: per-file code lines and shape digests (analysis/shape.py), copy
families from markers, modular sources and equal shapes (copies.py), and their price."""

from __future__ import annotations

import ast

import pytest

from migrate_lens.analysis.shape import family_words, shape_facts
from migrate_lens.copies import MIN_COPY_LINES, find_copies
from migrate_lens.models import FileFacts

BART = '''
"""Module docstring."""
import torch


class BartAttention(torch.nn.Module):
    """Multi-headed attention."""

    def __init__(self, dim):
        super().__init__()
        # a comment
        self.bart_proj = torch.nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x):
        """Docstring."""
        q = self.bart_proj(x) * self.scale
        k = self.bart_proj(x)
        w = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
        return w @ x
'''

MARIAN = BART.replace("Bart", "Marian").replace("bart", "marian").replace('"""Multi-headed attention."""', '"""Other words."""')


def _facts(source: str, path: str, module: str) -> FileFacts:
    code, shapes, generated = shape_facts(ast.parse(source), source, module)
    return FileFacts(path=path, module=module, sha256="", lines=source.count("\n"), code_lines=code,
                     shapes=shapes, generated_from=generated)


def test_code_lines_leave_out_blank_comment_and_docstring_lines() -> None:
    code, shapes, _ = shape_facts(ast.parse(BART), BART, "pkg.models.bart.modeling_bart")
    assert code == 11  # import, class, def __init__ + 3 lines, def forward + 4 lines
    by = {s.qualname.rsplit(".", 1)[-1]: s for s in shapes}
    assert by["forward"].code_lines == 5 and by["__init__"].code_lines == 4
    assert by["BartAttention"].code_lines == 1 + 4 + 5


TABLES = """
from functools import partial

import torch
from torch import nn

from .helpers import Weights, cfg

default_cfgs = {
    "net_small": cfg(url="https://example.org/small.pth", input_size=(3, 224, 224), mean=(0.5, 0.5, 0.5)),
    "net_large": cfg(url="https://example.org/large.pth", input_size=(3, 384, 384), mean=(0.5, 0.5, 0.5)),
}
__all__ = ["Net", "NetWeights"]
conv3x3 = partial(nn.Conv2d, kernel_size=3, padding=1)
EYE = torch.eye(3)


class NetWeights:
    IMAGENET = Weights(url="https://example.org/w.pth", meta={"params": 1_000, **cfg()})


class Net(nn.Module):
    _no_split_modules = ["Block",
                         "Stem"]

    def forward(self, x):
        return conv3x3(3, 3)(x) @ EYE
"""


def test_data_tables_are_not_code_lines() -> None:
    # module- and class-level assignments of literal data (config tables, weight enums, flags)
    # carry over as they are; an assignment naming torch (nn.Conv2d, torch.eye) is code
    code, shapes, _ = shape_facts(ast.parse(TABLES), TABLES, "pkg.net")
    by = {s.qualname.rsplit(".", 1)[-1]: s for s in shapes}
    assert by["NetWeights"].code_lines == 1  # the class line only
    assert by["Net"].code_lines == 3  # class, def forward, return
    # imports (4), conv3x3 and EYE (2), the two class lines, def forward and return
    assert code == 4 + 2 + 2 + 2


def test_family_names_are_normalised_so_renamed_copies_match() -> None:
    assert "bart" in family_words("pkg.models.bart.modeling_bart")
    a = {s.qualname.rsplit(".", 1)[-1]: s for s in _facts(BART, "models/bart/modeling_bart.py", "pkg.models.bart.modeling_bart").shapes}
    b = {s.qualname.rsplit(".", 1)[-1]: s for s in _facts(MARIAN, "models/marian/modeling_marian.py", "pkg.models.marian.modeling_marian").shapes}
    assert a["BartAttention"].digest == b["MarianAttention"].digest
    changed = MARIAN.replace("dim=-1", "dim=-2")
    c = {s.qualname.rsplit(".", 1)[-1]: s for s in _facts(changed, "m/modeling_marian.py", "pkg.models.marian.modeling_marian").shapes}
    assert c["MarianAttention"].digest != a["BartAttention"].digest


def test_same_shape_copy_family_has_one_original() -> None:
    files = [_facts(BART, "models/bart/modeling_bart.py", "pkg.models.bart.modeling_bart"),
             _facts(MARIAN, "models/marian/modeling_marian.py", "pkg.models.marian.modeling_marian")]
    index = find_copies(files)
    (fam,) = index.families
    assert fam.original == "pkg.models.bart.modeling_bart.BartAttention"
    assert [c.qualname for c in fam.copies] == ["pkg.models.marian.modeling_marian.MarianAttention"]
    assert fam.copies[0].evidence == "same shape"
    # the class is the copy, not its methods separately
    assert index.copied_lines_in("models/marian/modeling_marian.py", 1, 10_000) == fam.copies[0].code_lines


def test_a_copied_from_marker_is_strong_evidence_even_with_edits_and_an_outside_source() -> None:
    src = MARIAN.replace("class MarianAttention", "# Copied from other.models.bart.BartAttention with Bart->Marian\nclass MarianAttention")
    src = src.replace("dim=-1", "dim=-2")  # an edit: shapes differ
    index = find_copies([_facts(src, "marian.py", "pkg.marian")])
    (fam,) = index.families
    assert fam.original == "other.models.bart.BartAttention" and fam.path == ""
    assert fam.copies[0].evidence == "marker"


def test_modular_source_is_the_copy_of_the_generated_file() -> None:
    generated = "# This file was automatically generated from src/pkg/models/foo/modular_foo.py.\n" + BART.replace("Bart", "Foo")
    modular = "import torch\n\n\nclass FooAttention(torch.nn.Module):\n" + "\n".join(
        f"    def m{i}(self):\n        return {i}" for i in range(3)) + "\n"
    files = [_facts(generated, "models/foo/modeling_foo.py", "pkg.models.foo.modeling_foo"),
             _facts(modular, "models/foo/modular_foo.py", "pkg.models.foo.modular_foo")]
    assert files[0].generated_from == "modular_foo.py"
    index = find_copies(files)
    copies = [c for fam in index.families for c in fam.copies]
    assert [(c.qualname, c.evidence) for c in copies] == [("pkg.models.foo.modular_foo.FooAttention", "modular")]


def test_short_equal_functions_are_not_copies() -> None:
    tiny = "def f(x):\n    return x + 1\n"
    files = [_facts(tiny, "a.py", "a"), _facts(tiny, "b.py", "b")]
    assert MIN_COPY_LINES > 2 and find_copies(files).families == ()


def test_copies_lower_the_estimate_by_the_copy_fraction() -> None:
    from migrate_lens.catalog import Catalog
    from migrate_lens.config import Config
    from migrate_lens.estimate import COPY_FRACTION, estimate
    from migrate_lens.graph import build_project
    from migrate_lens.models import ClassFact, FunctionFact

    def facts(src: str, path: str, module: str, cls: str) -> FileFacts:
        f = _facts(src, path, module)
        sh = next(s for s in f.shapes if s.qualname.endswith(cls))
        from dataclasses import replace
        return replace(f, classes=(ClassFact(f"{module}.{cls}", sh.line, sh.end_line, ("torch.nn.Module",), True,
                                             sh.end_line - sh.line + 1),),
                       functions=(FunctionFact(f"{module}.{cls}.forward", sh.line + 1, sh.end_line, "traced", True),))

    catalog = Catalog(rules=(), api=(), digest="none")
    one = [facts(BART, "models/bart/modeling_bart.py", "pkg.models.bart.modeling_bart", "BartAttention")]
    two = one + [facts(MARIAN, "models/marian/modeling_marian.py", "pkg.models.marian.modeling_marian", "MarianAttention")]
    e1 = estimate(build_project(one, catalog, Config()), catalog, Config())
    e2 = estimate(build_project(two, catalog, Config()), catalog, Config())
    orig = e1.modules["pkg.models.bart.modeling_bart.BartAttention"].base.p50
    copy = e2.modules["pkg.models.marian.modeling_marian.MarianAttention"]
    assert copy.copied_lines == copy.code_lines > 0
    assert copy.base.p50 == pytest.approx(orig * COPY_FRACTION)


def _digests(source: str, module: str = "pkg.models.bart.modeling_bart") -> dict[str, str]:
    return {u.qualname.rsplit(".", 1)[-1]: u.digest for u in shape_facts(ast.parse(source), source, module)[1]}


LAYOUT = '''
class Block(nn.Module):
    _keys = ["a", "b"]

    def forward(self, x, mask=None):  # a comment
        """Docstring."""
        y = torch.cat([self.proj(x), x], dim=-1)
        return self.out(y, scale=0.5, bias=True)
'''


def test_digest_ignores_layout_comments_docstrings_and_string_contents() -> None:
    base = _digests(LAYOUT)
    relaid = LAYOUT.replace("torch.cat([self.proj(x), x], dim=-1)", "torch.cat(\n            [self.proj(x), x],\n            dim=-1,\n        )") \
        .replace("  # a comment", "").replace('"""Docstring."""', '"""Other words,\n        two lines."""') \
        .replace('["a", "b"]', "['x', 'y']").replace("return self.out(", "return self.out(  # why\n            ") \
        .replace("bias=True)", "bias=True,\n        )")
    assert _digests(relaid) == base


@pytest.mark.parametrize("edit", [("dim=-1", "dim=-2"), ("scale=0.5", "scale=0.25"), ("mask=None", "mask=1"),
                                  ("[self.proj(x), x]", "[x, self.proj(x)]"), ('["a", "b"]', '["a"]'),
                                  ("return self.out(y", "return self.out(-y")])
def test_digest_changes_with_the_code(edit: tuple[str, str]) -> None:
    base = _digests(LAYOUT)
    changed = _digests(LAYOUT.replace(*edit))
    assert changed["Block"] != base["Block"]
    if edit[0] != '["a", "b"]':  # (a class-level table is the class's shape, not its method's)
        assert changed["forward"] != base["forward"]


def test_digest_of_strings_and_comments_holding_quotes_and_hashes() -> None:
    a = 'def f(x):\n    s = "# not a comment"\n    return g(x, s)  # it\'s a "comment"\n'
    b = "def f(x):\n    s = 'other'\n    return g(x, s)\n"
    c = "def f(x):\n    s = 'other'\n    return g(s, x)\n"
    assert _digests(a) == _digests(b) != _digests(c)


def test_digest_keeps_block_structure() -> None:
    # a statement inside or after an `if`: different code
    inside = "def f(x):\n    if a:\n        x = g(x)\n        x = h(x)\n    return x\n"
    after = "def f(x):\n    if a:\n        x = g(x)\n    x = h(x)\n    return x\n"
    assert _digests(inside) != _digests(after)
    # layout still does not count: 2-space or tab indentation, breaks inside brackets, backslashes
    two = "def f(x):\n  if a:\n    x = g(x,\n          1)\n  return x\n"
    tab = "def f(x):\n\tif a:\n\t\tx = g(x, 1)\n\treturn x\n"
    cont = "def f(x):\n    if a:\n        x = \\\n            g(x, 1)\n    return x\n"
    assert _digests(two) == _digests(tab) == _digests(cont) != _digests(two.replace("  return", "    return"))
    # a decorated method keeps its digest wherever it sits
    method = "class A:\n    x = 1\n\n    @torch.no_grad()\n    def f(self, x):\n        return x\n"
    function = "@torch.no_grad()\ndef f(self, x):\n    return x\n"
    assert _digests(method)["f"] == _digests(function)["f"]


def test_form_feeds_and_unicode_line_breaks_keep_lines_aligned() -> None:
    # str.splitlines breaks at \x0c and \u2028, ast does not: code lines and markers stay right
    body = "# Copied from transformers.models.bert.modeling_bert.BertSelfOutput\ndef f(x):\n    y = x + 1\n    return y\n"
    for head in ("import torch\n\n", "import torch\n\x0c\n", "import torch  # a\u2028b\n\n"):
        source = head + body
        code, shapes, _ = shape_facts(ast.parse(source), source, "pkg.models.bart.modeling_bart")
        assert code == 4, repr(head)
        assert (shapes[0].code_lines, shapes[0].copied_from) == (3, "transformers.models.bert.modeling_bert.BertSelfOutput"), repr(head)
