"""The analyzer: value kinds, contexts, name resolution, traced-only resolution, errors."""

from __future__ import annotations

import pytest

from helpers_analysis import findings, lines_of, marked_lines
from migrate_lens.analysis.engine import (
    ParseFailure,
    analyze_native_file,
    analyze_source,
    local_traced_closure,
    resolve_traced_only,
)

MODULE = '''
import torch
import torch.nn as nn


def helper(x):
    print("in helper", torch.sum(x))
    return x


def unused(x):
    print("never traced", torch.sum(x))
    return x


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.fc.register_forward_hook(on_output)

    def _inner(self, x):
        print("inner", torch.sum(x))
        return helper(x)

    def forward(self, x):
        def nested(y):
            print("nested", torch.sum(y))
            return y
        return nested(self._inner(self.fc(x)))


def on_output(module, inputs, output):
    print("hook", torch.sum(output))
'''


def test_local_traced_closure_follows_self_calls_module_functions_hooks_and_nesting(catalog) -> None:
    facts = analyze_source(MODULE, "m.py", "m", catalog)
    closure = local_traced_closure(facts)
    assert closure == {"m.Block.forward", "m.Block.forward.nested", "m.Block._inner", "m.helper", "m.on_output"}


def test_resolve_traced_only_keeps_reachable_and_marks_them_traced(catalog) -> None:
    facts = analyze_source(MODULE, "m.py", "m", catalog)
    raw = {(f.symbol, f.traced_only) for f in facts.findings if f.code == "ML501"}
    assert ("m.unused", True) in raw
    resolved = resolve_traced_only(facts)
    prints = {(f.symbol, f.context, f.traced_only) for f in resolved.findings if f.code == "ML501"}
    assert prints == {
        ("m.helper", "traced", False), ("m.Block._inner", "traced", False),
        ("m.Block.forward.nested", "traced", False), ("m.on_output", "traced", False),
    }


def test_static_values_never_make_a_tensor_condition(catalog) -> None:
    src = '''
import torch
import torch.nn as nn

class M(nn.Module):
    def __init__(self, width: int, flag: bool = True):
        super().__init__()
        self.width = width
        self.flag = flag

    def forward(self, x, mask=None, scale: float = 1.0, n_heads=4):
        if x.shape[-1] != self.width or x.dim() != 3 or x.ndim < 2:
            raise ValueError("shape")
        if mask is None or isinstance(mask, (list, tuple)) or len(x) == 0:
            return x
        if x.dtype == torch.float16 and x.device.type == "cuda" and x.size(0) > 1:
            x = x.float()
        if self.flag and scale > 0 and n_heads > 1:
            x = x * scale
        return x
'''
    assert [f for f in findings(src, catalog) if f.code.startswith("ML1")] == []


def test_tensor_values_through_assignments_and_arithmetic(catalog) -> None:
    src = '''
import torch
import torch.nn as nn

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x):
        y = x * 2 + 1
        z = (y - self.w).abs()
        if z.max() > 3:
            return y
        s = torch.sigmoid(z)
        t = s if s.mean() > 0.5 else -s
        return t
'''
    found = findings(src, catalog)
    assert lines_of(found, "ML105") == {13}
    assert lines_of(found, "ML101") == {16}


def test_names_resolve_through_aliases_not_text(catalog) -> None:
    src = '''
import torch as T
from torch import nn as tnn
from torch.nn import functional as Fn

def torch_like(x):
    return x

class M(tnn.Module):
    def forward(self, x):
        a = Fn.dropout(x, p=0.5, training=True)
        b = T.rand_like(x)
        return torch_like(a + b)
'''
    found = findings(src, catalog)
    assert lines_of(found, "ML602") == {11}
    assert lines_of(found, "ML601") == {12}


def test_host_code_gets_no_side_effect_or_rng_findings(catalog) -> None:
    src = '''
import torch

torch.manual_seed(0)
x = torch.randn(3)
print(x)

if __name__ == "__main__":
    print(torch.rand(2).sum().item())
'''
    rules = catalog.by_code()
    got = findings(src, catalog)
    cats = {rules[f.code].category for f in got}
    assert not cats & {"side-effect"}
    # the script's seed alone, as a low host note: it becomes the root PRNG key (ML604); the
    # draws after it stay silent (host code runs eagerly)
    assert [(f.code, f.severity, f.context) for f in got if rules[f.code].category == "rng"] == [("ML604", "low", "host")]


def test_init_code_is_low_severity_for_in_place(catalog) -> None:
    src = '''
import torch.nn as nn

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.fc.weight.data.mul_(0.5)  # (a zeroed bias restates Flax's default: not reported)

    def forward(self, x):
        y = self.fc(x)
        y.relu_()
        return y
'''
    by_line = {f.span.line: f for f in findings(src, catalog) if f.code == "ML301"}
    # a mechanical rewrite (failure "rewrite"): medium at most in traced code, lower in init
    assert by_line[8].severity == "low" and by_line[8].context == "init"
    assert by_line[12].severity == "medium" and by_line[12].context == "traced"


def test_findings_are_sorted_and_deterministic(catalog) -> None:
    a = analyze_source(MODULE, "m.py", "m", catalog)
    b = analyze_source(MODULE, "m.py", "m", catalog)
    assert a == b
    keys = [(f.span.line, f.span.column, f.code) for f in a.findings]
    assert keys == sorted(keys)


def test_suppressions_apply_and_unused_ones_are_reported(catalog) -> None:
    src = "import torch\n\ndef f(x: torch.Tensor):\n    x.add_(1)  # migrate-lens: ignore[ML301]\n    x.mul_(2)  # migrate-lens: fixme[ML301] later\n    return x  # migrate-lens: ignore[ML301]\n"
    facts = analyze_source(src, "s.py", "s", catalog)
    got = {(f.span.line, f.code, f.suppressed) for f in facts.findings}
    assert (4, "ML301", "ignore") in got
    assert (5, "ML301", "fixme") in got
    assert (6, "ML001", "") in got


def test_parse_failure_is_a_value_error_type(catalog) -> None:
    with pytest.raises(ParseFailure, match="syntax error"):
        analyze_source("print 'python 2'\n", "p.py", "p", catalog)


def test_native_files_get_the_source_file_rule(catalog) -> None:
    got = analyze_native_file("csrc/kernel.cu", "csrc", catalog)
    assert [f.code for f in got] == ["ML412"]
    assert analyze_native_file("README.md", "x", catalog) == ()


def test_facts_carry_structure_for_the_graph(catalog) -> None:
    facts = analyze_source(MODULE, "pkg/m.py", "pkg.m", catalog)
    assert {c.qualname for c in facts.classes} == {"pkg.m.Block"}
    assert facts.classes[0].is_module
    assert "pkg.m.on_output" in facts.traced_entries
    assert any(s.attr == "fc" and s.target == "torch.nn.Linear" for s in facts.submodules)
    assert facts.rule_errors == ()


def test_branch_taken_only_under_torch_tracing_does_not_decide_the_kind(catalog) -> None:
    """``torch.min(t) if torch.jit.is_tracing() else min(r)``: eager PyTorch (and a JAX port)
    runs the ``else`` branch, a Python int (the Swin ``set_shift_and_window_size`` idiom)."""
    source = '''
import torch
import torch.nn as nn


class Layer(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        r = x.shape[1:3]
        w = torch.min(torch.tensor(r)) if torch.jit.is_tracing() else min(r)
        if w > 4:
            x = x + 1
        v = x.sum() if torch.jit.is_tracing() else x.max()
        if v > 0:  # expect
            x = x * 2
        return x
'''
    found = findings(source, catalog)
    assert lines_of(found, "ML101") == marked_lines(source)


def test_parameter_annotated_tensor_with_a_bool_default_is_a_flag(catalog) -> None:
    """``output_attentions: Optional[torch.Tensor] = False`` (FastSpeech2Conformer): the
    annotation is wrong, the default and the callers say flag; a real tensor parameter with a
    ``None`` default stays a tensor (sample 20261210 #32)."""
    source = '''
from typing import Optional

import torch
import torch.nn as nn


class Attention(nn.Module):
    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None,
                output_attentions: Optional[torch.Tensor] = False):
        w = x.softmax(-1)
        if not output_attentions:
            w = None
        if mask is not None and mask.sum() > 0:  # expect
            x = x * 2
        return x, w
'''
    assert lines_of(findings(source, catalog), "ML101") == marked_lines(source)
