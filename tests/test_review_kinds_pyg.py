"""Kinds of error found by the expert review of a fresh package, torch_geometric 2.8.1
(/work/notes/fresh-pyg.md), each with a flagged and a clean side:

- a package's absolute imports of itself (``from torch_geometric.data import Data`` inside
  ``torch_geometric``) name the code being ported, not an external dependency: the import rules
  (graph library, compiled-op library, ...) match only imports of *other* packages.
"""

from __future__ import annotations

from helpers_analysis import findings

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
