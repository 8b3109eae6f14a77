"""Kinds of error found by the expert review of a fresh package, torch_geometric 2.8.1
(/work/notes/fresh-pyg.md), each with a flagged and a clean side:

- a package's absolute imports of itself (``from torch_geometric.data import Data`` inside
  ``torch_geometric``) name the code being ported, not an external dependency: the import rules
  (graph library, compiled-op library, ...) match only imports of *other* packages;
- a one-shot hook (lazy shape inference: the callback removes its own handle) is init code,
  not a per-call callback, and ``nn.Module``'s ``_save_to_state_dict`` override is checkpoint
  code that fills a ``destination`` mapping (PyG's ``Linear(-1, out)``);
- calling a submodule whose forward is torch's (``self.mlp(x)`` on an ``nn.Sequential``
  subclass) does not run the class's ``__init__`` under the trace (PyG's ``GENConv`` made its
  MLP's ``Linear.reset_parameters`` and every weight initializer "traced").
"""

from __future__ import annotations

from pathlib import Path

from helpers_analysis import findings
from test_graph import analyze_tree, write_package

from migrate_lens.config import Config
from migrate_lens.graph import build_project

OWN_IMPORTS = '''
import torch
import torch_geometric.typing
from torch_geometric.data import Data
from torch_geometric.utils import scatter
from torch_geometric.nn.conv import MessagePassing
try:
    from torch_geometric.nn.fused import fused_gather
except ImportError:
    fused_gather = None
import dgl
from dgl.nn import GraphConv
'''


def test_a_package_importing_itself_is_no_ecosystem_dependency(catalog) -> None:
    inside = findings(OWN_IMPORTS, catalog, path="nn/conv/gcn_conv.py", module="torch_geometric.nn.conv.gcn_conv")
    assert {f.span.line for f in inside if f.code == "ML1020"} == {11, 12}  # dgl only
    outside = findings(OWN_IMPORTS, catalog, path="model.py", module="mymodel.model")
    assert {f.span.line for f in outside if f.code == "ML1020"} == {3, 4, 5, 6, 8, 11, 12}


LAZY_LINEAR = '''
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def glorot(value):
    if isinstance(value, torch.Tensor):
        stdv = math.sqrt(6.0 / (value.size(-2) + value.size(-1)))
        value.data.uniform_(-stdv, stdv)
    else:
        for v in value.parameters():
            glorot(v)


class Linear(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        if in_channels > 0:
            self.weight = nn.Parameter(torch.empty(out_channels, in_channels))
        else:
            self.weight = nn.parameter.UninitializedParameter()
            self._hook = self.register_forward_pre_hook(self.initialize_parameters)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in_channels > 0:
            glorot(self.weight)

    def forward(self, x):
        return F.linear(x, self.weight)

    @torch.no_grad()
    def initialize_parameters(self, module, input):
        if isinstance(self.weight, nn.parameter.UninitializedParameter):
            self.in_channels = input[0].size(-1)
            self.weight.materialize((self.out_channels, self.in_channels))
            self.reset_parameters()
        module._hook.remove()

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        if isinstance(self.weight, nn.parameter.UninitializedParameter) or keep_vars:
            destination[prefix + "weight"] = self.weight
        else:
            destination[prefix + "weight"] = self.weight.detach()


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = Linear(4, 4)
        self._hook = self.register_forward_hook(self.keep)

    def keep(self, module, inputs, output):
        self.seen = output

    def forward(self, x):
        return self.lin(x)


class MLP(nn.Sequential):
    def __init__(self, channels):
        super().__init__(*[Linear(channels[i - 1], channels[i]) for i in range(1, len(channels))])


class Conv(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.mlp = MLP([channels, 2 * channels, channels])

    def forward(self, x):
        return self.mlp(x)
'''


def _line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), start=1) if text in line)


def test_lazy_linear_is_init_code_and_its_users_stay_clean(tmp_path: Path) -> None:
    from migrate_lens.catalog import load_catalog

    write_package(tmp_path, {"linear": LAZY_LINEAR})
    catalog = load_catalog()
    project = build_project(analyze_tree(tmp_path, catalog), catalog, Config())
    by_code: dict[str, set[tuple[int, str]]] = {}
    for f in project.findings:
        by_code.setdefault(f.code, set()).add((f.span.line, f.context))
    # the per-call hook of Probe stays; the one-shot lazy-init hook is no finding
    assert {line for line, _ in by_code.get("ML508", set())} == {_line_of(LAZY_LINEAR, "(self.keep)")}
    # the recursive weight initializer runs in init code (reached from __init__ only; the
    # Sequential subclass's instance call in Conv.forward runs torch's forward, not __init__)
    assert all(ctx != "traced" for _, ctx in by_code.get("ML107", set()))
    # _save_to_state_dict writes a checkpoint mapping, eagerly: no branch or argument-write finding
    save = _line_of(LAZY_LINEAR, "def _save_to_state_dict")
    assert not {c for c, sites in by_code.items() for line, _ in sites if save < line <= save + 4}
    statuses = {m: project.module(f"pkg.linear.{m}").status for m in ("Linear", "MLP", "Conv", "Probe")}
    assert statuses["Linear"] in ("pure", "mechanical") and statuses["Conv"] in ("pure", "mechanical")
    assert statuses["Probe"] == "redesign"


ERROR_PATHS = '''
import torch
import torch.nn as nn


class Gather(nn.Module):
    def forward(self, src, index):
        try:
            return src.index_select(0, index)
        except (IndexError, RuntimeError) as e:
            if index.numel() > 0 and index.min() < 0:
                raise IndexError(f"negative index {index.min().item()}") from e
            raise e


class Fallback(nn.Module):
    def forward(self, src, index):
        try:  # expect: ML108
            return src.index_select(0, index)
        except RuntimeError:
            n = int(index.max())  # expect: ML512
            return src[:n]


class Replay(nn.Module):
    def forward(self, x, hooks):
        try:
            y = x * 2
        finally:
            for h in hooks:
                h.remove()
        return y
'''


def test_error_reporting_handlers_and_finally_are_no_obstacles(catalog) -> None:
    """PyG's ``MessagePassing._index_select_safe``: a handler that only builds a better message
    and re-raises never runs under jit (nothing raises there); a handler that computes a
    fallback is exceptions as control flow; ``try``/``finally`` catches nothing."""
    found = findings(ERROR_PATHS, catalog)
    codes: dict[int, set[str]] = {}
    for f in found:
        codes.setdefault(f.span.line, set()).update({f.code, *f.folds})
    for i, line in enumerate(ERROR_PATHS.splitlines(), start=1):
        if "# expect: " in line:
            assert line.split("# expect: ")[1].strip() in codes.get(i, set()), (i, line)
    gather, fallback, replay = (_line_of(ERROR_PATHS, f"class {c}(") for c in ("Gather", "Fallback", "Replay"))
    assert not [i for i in codes if gather < i < fallback or replay < i]
