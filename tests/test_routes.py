"""A compiled kernel whose file holds a pure-PyTorch route is a redesign (ML413), not a
blocker (migrate_lens/analysis/routes.py)."""

from __future__ import annotations

from helpers_analysis import findings
from migrate_lens.analysis.routes import fallback_for


def test_fallback_names() -> None:
    leaves = frozenset({"rwkv_linear_attention_cpu", "forward"})
    assert fallback_for("load_kernel( name=f\"wkv_{n}\", sources=files)", leaves) == "rwkv_linear_attention_cpu"
    assert fallback_for('load( "MultiScaleDeformableAttention", src_files, with_cuda=True)',
                        frozenset({"multi_scale_deformable_attention"})) == "multi_scale_deformable_attention"
    assert fallback_for("torch.ops.torchvision.roi_align( input, rois)", frozenset({"_roi_align"})) == "_roi_align"
    assert fallback_for('load("cuda_kernel", src_files, verbose=True)', frozenset({"mra2_attention", "sparse_max"})) == ""


def test_kernel_with_fallback_is_rerouted_and_without_stays_critical(catalog) -> None:
    with_route = '''
import torch
from torch.utils.cpp_extension import load as load_kernel

kernel = load_kernel(name="wkv", sources=["wkv.cu"])


def rwkv_attention_cpu(k: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(k, dim=1)
'''
    got = [(f.code, f.severity) for f in findings(with_route, catalog) if f.code in ("ML403", "ML413")]
    assert got == [("ML413", "medium")]
    blocked = with_route.replace("rwkv_attention_cpu", "rwkv_attention")
    got = [(f.code, f.severity) for f in findings(blocked, catalog) if f.code in ("ML403", "ML413")]
    assert got == [("ML403", "critical")]


def test_optional_kernel_rule_names_the_same_libraries_as_the_required_one(catalog) -> None:
    """ML414 (an optional import: under ``if is_<lib>_available()`` or ``try/except
    ImportError``) and ML410 (a required one) split one list of compiled-kernel libraries."""
    by = catalog.by_code()
    required, optional = dict(by["ML410"].matcher.params), dict(by["ML414"].matcher.params)
    assert required["names"] == optional["names"] and required["optional"] is False and optional["optional"] is True


def test_optional_kernel_import_and_its_calls_are_ml414(catalog) -> None:
    source = '''
import torch

if is_mamba_ssm_available():
    from mamba_ssm.ops.selective_scan_interface import selective_scan_fn
else:
    selective_scan_fn = None
from flash_attn import flash_attn_func


def scan(u: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
    if selective_scan_fn is not None:
        return selective_scan_fn(u, delta)
    return torch.cumsum(u * delta, dim=-1)
'''
    got = sorted((f.span.line, f.code, f.severity) for f in findings(source, catalog) if f.code in ("ML410", "ML414"))
    assert got == [(5, "ML414", "medium"), (8, "ML410", "high"), (13, "ML414", "medium")]
