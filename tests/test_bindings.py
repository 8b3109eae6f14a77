"""Bindings of callables and classes (``analysis/bindings.py``) and constructor injection
(``InjectionFact`` joined by the project graph).

Snippet tests run the shipped catalog and assert exact (line, code) pairs; the project tests
run ``fixtures/projects/injected`` (hazards in another file than the model that reaches them)
with the test-only rules of ``fixtures/projects/rules`` so they do not move with the catalog.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from helpers_analysis import findings
from migrate_lens.analysis.engine import analyze_source
from migrate_lens.catalog import Catalog
from migrate_lens.config import Config
from migrate_lens.graph import Project, build_project
from migrate_lens.models import FileFacts, InjectionFact
from test_graph import PROJECTS, analyze_tree, fixture_catalog

INJECTED = PROJECTS / "injected"


def pairs(source: str, catalog: Catalog, *codes: str) -> set[tuple[int, str]]:
    """(line, code) of the active findings of ``source`` among ``codes``."""
    return {(f.span.line, f.code) for f in findings(source, catalog) if f.code in codes}


# ---------------------------------------------------------------------------- aliases
def test_function_level_alias_with_both_alternatives_is_a_call_of_each(catalog: Catalog) -> None:
    src = '''
import torch.nn as nn

class PosConv(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.conv = nn.Conv1d(c, c, 3)
        weight_norm = nn.utils.weight_norm
        if hasattr(nn.utils.parametrizations, "weight_norm"):
            weight_norm = nn.utils.parametrizations.weight_norm
        self.conv = weight_norm(self.conv, name="weight", dim=2)

    def forward(self, x):
        return self.conv(x)
'''
    assert pairs(src, catalog, "ML1018") == {(11, "ML1018")}
    facts = analyze_source(src, "m.py", "m", catalog)
    callees = {c.callee for c in facts.calls if c.caller == "m.PosConv.__init__"}
    assert {"torch.nn.utils.weight_norm", "torch.nn.utils.parametrizations.weight_norm"} <= callees


def test_module_level_op_namespace_alias_and_conditional_alias(catalog: Catalog) -> None:
    src = '''
import torch
import torch.nn as nn
from torch.nn.utils import spectral_norm, weight_norm

_C = torch.ops._C
USE_WN = True
wrap = weight_norm if USE_WN else spectral_norm

class Layer(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.conv = wrap(nn.Conv2d(c, c, 3))

    def forward(self, x):
        return _C.fused_act(self.conv(x))
'''
    assert pairs(src, catalog, "ML1018", "ML405") == {(13, "ML1018"), (16, "ML405")}
    facts = analyze_source(src, "m.py", "m", catalog)
    callees = {c.callee for c in facts.calls if c.caller == "m.Layer.__init__"}
    assert {"torch.nn.utils.weight_norm", "torch.nn.utils.spectral_norm"} <= callees


def test_import_fallback_keeps_the_imported_callable_as_the_call_target(catalog: Catalog) -> None:
    src = '''
import torch.nn as nn
try:
    from flash_attn import flash_attn_func
except ImportError:
    flash_attn_func = None

def reference_attention(q, k, v):
    return (q @ k.transpose(-1, -2)).softmax(-1) @ v

try:
    from fused import fast_attention
except ImportError:
    fast_attention = reference_attention

class Attn(nn.Module):
    def forward(self, q, k, v):
        if flash_attn_func is not None:
            return flash_attn_func(q, k, v)
        return fast_attention(q, k, v)
'''
    facts = analyze_source(src, "m.py", "m", catalog)
    callees = {c.callee for c in facts.calls if c.caller == "m.Attn.forward"}
    assert {"flash_attn.flash_attn_func", "fused.fast_attention", "m.reference_attention"} <= callees


def test_local_callable_variable_and_rebinding_to_a_value(catalog: Catalog) -> None:
    src = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

class Scan(nn.Module):
    def forward(self, x, fast: bool = True):
        act = F.gelu if fast else F.silu
        y = act(x)
        act = y * 2
        return act.cuda()
'''
    found = findings(src, catalog)
    assert (9, "ML902") in {(f.span.line, f.code) for f in found}
    facts = analyze_source(src, "m.py", "m", catalog)
    callees = {c.callee for c in facts.calls}
    assert "torch.nn.functional.silu" in callees
    assert not any(c.startswith("torch.nn.functional.gelu.") for c in callees)  # `act` rebound to a tensor


def test_bound_methods_and_functions_stored_on_self(catalog: Catalog) -> None:
    src = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

class FFN(nn.Module):
    def __init__(self, d: int, fused: bool = False):
        super().__init__()
        self.up = nn.Linear(d, d)
        self.activation = F.gelu
        self.step = self._fast if fused else self._plain

    def _plain(self, x):
        return x

    def _fast(self, x):
        if x.sum().item() > 0:
            return x
        return -x

    def forward(self, x):
        return self.step(self.activation(self.up(x)))
'''
    assert pairs(src, catalog, "ML902", "ML102") == {(22, "ML902"), (17, "ML102")}


# ---------------------------------------------------------------------------- class references
def test_injected_torch_classes_count_as_uses_and_partial_keywords_apply(catalog: Catalog) -> None:
    src = '''
from functools import partial
import torch.nn as nn
from .blocks import Block

class Net(nn.Module):
    def __init__(self, d: int = 8, act_layer=nn.GELU, norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.act = act_layer()
        self.norm = norm_layer(d)
        self.a = Block(d, act_layer=nn.GELU)
        self.b = Block(d, act_layer=partial(nn.GELU, approximate="tanh"))
        self.c = Block(d, norm_layer=partial(nn.LayerNorm, eps=1e-6))
        self.d = Block(d, norm_layer=nn.LayerNorm)
        self.is_gelu = isinstance(self.act, nn.GELU)

    def forward(self, x):
        return self.d(self.c(self.b(self.a(self.norm(self.act(x))))))
'''
    # named where injected: the default (7) and the argument (11), not `act_layer()` (9)
    assert pairs(src, catalog, "ML902", "ML903") == {(7, "ML902"), (11, "ML902"), (14, "ML903")}


def test_injection_facts_are_plain_picklable_data(catalog: Catalog) -> None:
    facts = analyze_source((INJECTED / "zoo" / "models.py").read_text(encoding="utf-8"), "zoo/models.py",
                           "zoo.models", catalog)
    assert facts.injections and all(isinstance(j, InjectionFact) for j in facts.injections)
    assert pickle.loads(pickle.dumps(facts)) == facts
    assert FileFacts(path="a.py", module="a", sha256="", lines=0).injections == ()
    kinds = {(j.kind, j.owner, j.param, j.target) for j in facts.injections}
    assert ("arg", "zoo.models.Flow", "corr", "zoo.layers.CorrPyramid") in kinds
    assert ("slot", "zoo.models.BlockConfig", "block", "zoo.layers.HostBranchBlock") in kinds
    assert ("field", "zoo.models.ConfigNet", "block", "") in kinds
    assert not any(j.kind == "field" and j.param == "append" for j in facts.injections)  # a list, not a config


# ---------------------------------------------------------------------------- the project
@pytest.fixture(scope="module")
def project() -> Project:
    catalog = fixture_catalog()
    return build_project(analyze_tree(INJECTED, catalog), catalog, Config())


@pytest.mark.parametrize(("qualname", "status"), [
    ("zoo.models.Stage", "blocked"),      # `block = block or HostBranchBlock`; OpsNorm injected by Net, passed on
    ("zoo.models.Net", "blocked"),        # OpsNorm as norm_layer of its Stage
    ("zoo.models.Flow", "redesign"),      # a CorrPyramid instance built by flow_model()
    ("zoo.models.ConfigNet", "redesign"),  # cnf.block(...) with BlockConfig.block defaulting to HostBranchBlock
    ("zoo.models.Plain2", "redesign"),    # forward monkey-patched with patched_forward
    ("zoo.models.Plain", "pure"),         # act_layer=nn.ReLU: torch layers only
])
def test_statuses_through_injected_classes(project: Project, qualname: str, status: str) -> None:
    assert project.module(qualname).status == status


def test_injected_instance_methods_are_traced(project: Project) -> None:
    assert {"zoo.layers.CorrPyramid.index", "zoo.layers.CorrPyramid.build", "zoo.models.patched_forward"} <= project.traced
    lines = {(f.path, f.span.line, f.code) for f in project.findings}
    assert ("zoo/layers.py", 35, "ML102") in lines  # host-value branch in a method forward reaches via self.corr
    assert ("zoo/models.py", 86, "ML102") in lines  # in the patched forward
    assert "Flow -> CorrPyramid" in project.module("zoo.models.Flow").explanation[0]


# ---------------------------------------------------------------------------- across files
@pytest.fixture(scope="module")
def shipped_project(catalog: Catalog) -> Project:
    return build_project(analyze_tree(INJECTED, catalog), catalog, Config())


def test_aliases_imported_from_another_file_are_matched_by_the_project(shipped_project: Project) -> None:
    got = {(f.span.line, f.code) for f in shipped_project.findings if f.path == "kernels/model.py"}
    assert (10, "ML1018") in got   # weight_norm = nn.utils.weight_norm in ops.py
    assert (19, "ML405") in got    # _C = torch.ops.fused_rope in ops.py
    assert (18, "ML414") in got    # the call of the try/except-imported (optional) flash_attn_func
    assert not any(code == "ML903" for _, code in got)  # LayerNormNoBias(dim, eps=1e-6): eps given
    assert (5, "ML414") in {(f.span.line, f.code) for f in shipped_project.findings if f.path == "kernels/ops.py"}


def test_cache_object_passed_into_forward_is_mutated_state_and_its_methods_are_traced(shipped_project: Project) -> None:
    got = {(f.path, f.span.line, f.code) for f in shipped_project.findings}
    assert ("kernels/model.py", 16, "ML707") in got  # past_key_values.update(k, v, 0)
    assert "kernels.cache.KVCache.update" in shipped_project.traced
    assert ("kernels/cache.py", 9, "ML102") in got  # host-value branch inside the cache's update
    assert shipped_project.module("kernels.decoder.Decoder").status in ("redesign", "blocked")


def test_argument_mutation_near_misses(catalog: Catalog) -> None:
    src = '''
import torch
import torch.nn as nn

class Block(nn.Module):
    def forward(self, x, feats=None, **kwargs):
        kwargs.update(scale=2.0)
        outs = []
        outs.append(x)
        y = x.add(1)
        if feats is not None:
            feats.append(y)
        return torch.cat(outs) * kwargs["scale"]
'''
    assert pairs(src, catalog, "ML707") == {(12, "ML707")}


def test_binding_facts_keep_the_fast_positions(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """Facts recorded for the project (calls of project names, host-state reads decided at the
    end of the file) take their lines during the walk: asking positions of an earlier
    statement afterwards falls back to libcst's full PositionProvider (3x the walk)."""
    import migrate_lens.analysis.walk as walk

    def no_fallback(self: object, reason: str) -> None:
        raise AssertionError(f"position fallback: {reason}")

    monkeypatch.setattr(walk.Positions, "fallback", no_fallback)
    for rel in ("kernels/model.py", "kernels/decoder.py", "zoo/models.py"):
        src = (INJECTED / rel).read_text(encoding="utf-8")
        facts = analyze_source(src, rel, rel[:-3].replace("/", "."), catalog)
        assert facts.calls_to_project or facts.injections


def test_host_set_attribute_only_for_values_advanced_between_steps(catalog: Catalog) -> None:
    src = '''
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

class Quantizer(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.curr_temp = 2.0
        self.lambda_init = 0.8
        self.use_residual = False

    def set_num_updates(self, num_updates: int):
        self.curr_temp = max(2.0 * 0.999995 ** num_updates, 0.5)

    def set_lambda_init(self, depth: int):
        self.lambda_init = 0.8 - 0.6 * math.exp(-0.3 * depth)

    def enable_residual(self, enable: bool = True):
        self.use_residual = enable

    def forward(self, x):
        y = F.gumbel_softmax(self.proj(x), tau=self.curr_temp, hard=True) * self.lambda_init
        return y + x if self.use_residual else y
'''
    assert pairs(src, catalog, "ML708") == {(25, "ML708")}


def test_a_torch_free_builder_file_wires_its_modules_together() -> None:
    """segment-anything's shape: ``build_sam.py`` never names torch but builds
    ``Sam(image_encoder=ImageEncoderViT(...), mask_decoder=MaskDecoder(transformer=TwoWayTransformer()))``
    into untyped (or ``nn.Module``-typed) constructor parameters. The marker pre-filter lets it
    through (it imports from its project and calls classes), so the holders get their edges and
    the injected module's status reaches them."""
    from migrate_lens.config import Config
    from migrate_lens.onefile import wires_project_classes
    from migrate_lens.pipeline import scan

    root = PROJECTS / "builder"
    result = scan(root, Config(), jobs=1, use_cache=False)
    graph = result.project.graph
    comp = {(u, v) for u, v, d in graph.edges(data=True) if d.get("kind") == "composition"}
    assert ("samlike.modeling.sam.Sam", "samlike.modeling.image_encoder.ImageEncoderViT") in comp
    assert ("samlike.modeling.sam.Sam", "samlike.modeling.mask_decoder.MaskDecoder") in comp
    assert ("samlike.modeling.mask_decoder.MaskDecoder", "samlike.modeling.mask_decoder.TwoWayTransformer") in comp
    assert result.project.module("samlike.modeling.sam.Sam").status == "redesign"  # TwoWayTransformer's nonzero
    assert not wires_project_classes("import os\nPath = os.path.join('a', 'b')\n", "samlike.util")
    assert not wires_project_classes("from .x import y\nCONFIG = dict(a=1)\n", "samlike.util")
