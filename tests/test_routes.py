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
    # a kernel's call site: the handle it is called on names the extension (ML415)
    assert fallback_for("MultiScaleDeformableAttention.ms_deform_attn_forward( value, shapes)",
                        frozenset({"multi_scale_deformable_attention"})) == "multi_scale_deformable_attention"
    assert fallback_for("mra_cuda_kernel.index_max(index_vals, indices)", frozenset({"sparse_max"})) == ""
    # an autograd.Function's apply names the Function, not an extension (RWKV's dispatcher)
    assert fallback_for("RwkvLinearAttention.apply(k, v)", frozenset({"rwkv_linear_attention", "wkv_cpu"})) == "wkv_cpu"


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
    assert got == [(5, "ML414", "low"), (8, "ML410", "high"), (13, "ML414", "low")]


def _estimate_of(tmp_path, files: dict[str, str]):
    from migrate_lens.config import Config
    from migrate_lens.pipeline import scan

    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return scan(tmp_path, Config(), jobs=1, use_cache=False).estimate


def test_the_custom_op_table_says_which_ops_have_a_fallback_in_the_code(tmp_path) -> None:
    """A compiled library imported under try/except ImportError has a path without it (an
    optional import); a kernel beside a pure-PyTorch function has a route (ML413); a library
    imported unconditionally in a file without a reference implementation has none."""
    est = _estimate_of(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/optional.py": '''
import torch
from torch import nn

try:
    from flash_attn import flash_attn_func
except ImportError:
    flash_attn_func = None


class Attention(nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        if flash_attn_func is not None:
            return flash_attn_func(q, k, v)
        return torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v
''',
        "pkg/hard.py": '''
import torch
from torch import nn
from xformers.ops import memory_efficient_attention


class Attention(nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return memory_efficient_attention(q, k, v)
''',
        "pkg/kernel.py": '''
import torch
from torch import nn
from torch.utils.cpp_extension import load
import bitsandbytes as bnb

wkv = load(name="wkv", sources=["wkv.cu"])
int8 = bnb.nn.Linear8bitLt


def wkv_attention_cpu(k: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(k, dim=1)


class Mix(nn.Module):
    def forward(self, k: torch.Tensor) -> torch.Tensor:
        return wkv_attention_cpu(k)
''',
    })
    deps = {d.name: d for d in est.dependencies}
    assert (deps["flash_attn"].fallback, deps["flash_attn"].fallback_sites) == ("optional import", len(deps["flash_attn"].sites))
    assert (deps["xformers"].fallback, deps["xformers"].fallback_sites) == ("", 0)
    # a library beside a kernel's `*_cpu` reference implementation is not that kernel's fallback
    assert (deps["bitsandbytes"].fallback, deps["bitsandbytes"].fallback_sites) == ("", 0)
    sites = {c.code: c for c in est.custom_op_sites}
    assert sites["ML413"].fallback == "route without the kernel" and sites["ML413"].fallback_sites == sites["ML413"].sites


_MIXER = '''
import torch
from torch import nn

if is_mamba_ssm_available():
    from mamba_ssm.ops.selective_scan_interface import selective_scan_fn
else:
    selective_scan_fn = None
is_fast_path_available = all((selective_scan_fn,))


class Mixer(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.use_fast_kernels = True

    def cuda_kernels_forward(self, x: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        if cache_position[0] > 0:
            x.add_(1)
        return selective_scan_fn(x, self.proj(x))

    def torch_forward(self, x: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        if cache_position[0] > 0:
            x = x + 1
        return torch.cumsum(self.proj(x), dim=1)

    def forward(self, x: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        if is_fast_path_available and "cuda" in x.device.type:
            return self.cuda_kernels_forward(x, cache_position)
        return self.torch_forward(x, cache_position)
'''


def test_a_kernel_route_keeps_only_its_kernel_use(catalog) -> None:
    """``cuda_kernels_forward`` calls an optional kernel and ``forward`` enters it only under
    ``if is_fast_path_available``: the port drops that route (routes.drop_kernel_routes), so of
    its findings only the kernel use (ML414) is left; ``torch_forward``, the path the port
    follows, keeps its tensor condition."""
    got = sorted((f.span.line, f.code) for f in findings(_MIXER, catalog) if f.code != "ML603")
    assert (21, "ML414") in got and (24, "ML101") in got  # kernel use kept; torch_forward's if kept
    assert not [c for line, c in got if 18 <= line <= 21 and c != "ML414"], got  # route: nothing else


def test_a_kernel_route_behind_a_config_flag_and_a_raise_is_dropped_too(catalog) -> None:
    """jamba's form: ``if self.use_fast_kernels:`` whose body raises unless the kernels are
    installed (``if not is_fast_path_available: raise``), then enters the route."""
    source = _MIXER.replace('''        if is_fast_path_available and "cuda" in x.device.type:
            return self.cuda_kernels_forward(x, cache_position)''', '''        if self.use_fast_kernels:
            if not is_fast_path_available or "cuda" not in x.device.type:
                raise ValueError("Fast kernels are not available")
            return self.cuda_kernels_forward(x, cache_position)''')
    got = sorted((f.span.line, f.code) for f in findings(source, catalog))
    assert not [c for line, c in got if 18 <= line <= 21 and c != "ML414"], got


def test_a_function_also_called_outside_a_kernel_gate_is_no_route(catalog) -> None:
    """The same method, called once without the gate (or under a negated one), is a path the
    port may follow: its findings stay."""
    ungated = _MIXER.replace('''        return self.torch_forward(x, cache_position)''',
                             '''        return self.cuda_kernels_forward(x, cache_position)''')
    negated = _MIXER.replace("if is_fast_path_available and", "if not is_fast_path_available and")
    for source in (ungated, negated):
        got = sorted((f.span.line, f.code) for f in findings(source, catalog))
        assert (19, "ML101") in got and (20, "ML315") in got, got
