"""Project graph: edges, cross-file inheritance, traced reachability, status propagation and
explanation paths, on the fixture project ``fixtures/projects/layered`` (see its README).

The fixture is analyzed with the test-only rules in ``fixtures/projects/rules`` (ML401 custom
op: blocked; ML102 host-value branch, traced context only; ML801 ``.cuda()``: mechanical;
ML901 ``nn.GELU``: info), so these tests do not move when the shipped catalog is refined.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import replace
from pathlib import Path

import jsonschema
import networkx as nx
import pytest

from migrate_lens.analysis.engine import analyze_source
from migrate_lens.catalog import Catalog, parse_rule
from migrate_lens.config import Config
from migrate_lens.discover import module_name
from migrate_lens.graph import (
    Project,
    build_project,
    graph_view,
    is_test_path,
    strongly_connected,
    worst_reachable,
    write_graphml,
)
from migrate_lens.models import FileFacts

REPO = Path(__file__).resolve().parent.parent
PROJECTS = REPO / "fixtures" / "projects"
LAYERED = PROJECTS / "layered"


def fixture_catalog() -> Catalog:
    """The test-only catalog of ``fixtures/projects/rules``."""
    rules = [parse_rule(p, tomllib.loads(p.read_text(encoding="utf-8"))) for p in sorted((PROJECTS / "rules").glob("*.toml"))]
    return Catalog(rules=tuple(sorted(rules, key=lambda r: r.code)), api=(), digest="fixture")


def write_package(root: Path, modules: dict[str, str]) -> None:
    """A package ``pkg`` under ``root``: an empty ``__init__.py`` and one file per module name
    (``{"model": source}`` -> ``pkg/model.py``)."""
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, source in modules.items():
        (pkg / f"{name}.py").write_text(source)


def analyze_tree(root: Path, catalog: Catalog) -> list[FileFacts]:
    """FileFacts of every ``.py`` under ``root`` (paths relative to it), as the pipeline makes them."""
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        out.append(analyze_source(p.read_text(encoding="utf-8"), rel, module_name(rel), catalog))
    return out


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return fixture_catalog()


@pytest.fixture(scope="module")
def facts(catalog: Catalog) -> list[FileFacts]:
    return analyze_tree(LAYERED, catalog)


@pytest.fixture(scope="module")
def project(facts: list[FileFacts], catalog: Catalog) -> Project:
    return build_project(facts, catalog, Config())


def _edges(project: Project, kind: str) -> set[tuple[str, str]]:
    return {(u, v) for u, v, k in project.graph.edges(keys=True) if k == kind}


def test_import_edges_follow_relative_imports_and_reexports(project: Project) -> None:
    # `from proj.layers import Attention, Mlp` lands on the defining modules (package re-export
    # and star re-export); `from ..ops import ...` is resolved from proj/layers/attn.py.
    assert _edges(project, "import") == {
        ("proj", "proj.blocks"), ("proj", "proj.layers.attn"),
        ("proj.base", "torch"),
        ("proj.blocks", "proj.layers.attn"), ("proj.blocks", "proj.layers.mlp"), ("proj.blocks", "proj.ops"),
        ("proj.blocks", "torch"),
        ("proj.cyc_a", "proj.cyc_b"), ("proj.cyc_b", "proj.cyc_a"), ("proj.cyc_b", "torch"),
        ("proj.hooks", "torch"),
        ("proj.layers", "proj.layers.attn"), ("proj.layers", "proj.layers.mlp"),
        ("proj.layers.attn", "proj.ops"), ("proj.layers.attn", "torch"),
        ("proj.layers.mlp", "torch"),
        ("proj.leaf", "proj.layers.mlp"), ("proj.leaf", "proj.middle"), ("proj.leaf", "torch"),
        ("proj.middle", "proj.base"),
        ("proj.ops", "torch"), ("proj.train", "torch"),
        ("tests.test_proj", "proj.layers.mlp"), ("tests.test_proj", "torch"),
    }


def test_call_edges_resolve_self_submodules_inherited_methods_and_imports(project: Project) -> None:
    assert _edges(project, "call") == {
        # constructors in __init__ (the class node)
        ("proj.blocks.Block.__init__", "proj.layers.attn.Attention"),
        ("proj.blocks.Block.__init__", "proj.layers.mlp.Mlp"),
        ("proj.blocks.Stack.__init__", "proj.blocks.Block"),
        ("proj.leaf.Leaf.__init__", "proj.layers.mlp.Mlp"),
        ("proj.leaf.Leaf.__init__", "proj.leaf.make_layer"),
        ("proj.cyc_a.make_b", "proj.cyc_b.B"),
        ("tests.test_proj.test_mlp_shape", "proj.layers.mlp.Mlp"),
        # self.sub(...) goes to the submodule class's forward
        ("proj.blocks.Block.forward", "proj.layers.attn.Attention.forward"),
        ("proj.blocks.Block.forward", "proj.layers.mlp.Mlp.forward"),
        ("proj.leaf.Leaf.forward", "proj.layers.mlp.Mlp.forward"),
        # self.method(...) through two levels of inheritance across files
        ("proj.leaf.Leaf.forward", "proj.base.Base.to_device"),
        ("proj.leaf.Leaf.forward", "proj.middle.Middle.scale"),
        # imported functions (relative and absolute)
        ("proj.blocks.Block.forward", "proj.ops.host_check"),
        ("proj.layers.attn.Attention.forward", "proj.ops.fused_attention"),
        ("proj.cyc_b.B.forward", "proj.cyc_a.helper_a"),
        ("proj.train.train_step", "proj.train.check_loss"),
    }


def test_composition_includes_layers_built_in_comprehensions(project: Project) -> None:
    assert _edges(project, "composition") == {
        ("proj.blocks.Block", "proj.layers.attn.Attention"),
        ("proj.blocks.Block", "proj.layers.mlp.Mlp"),
        ("proj.blocks.Stack", "proj.blocks.Block"),
        ("proj.leaf.Leaf", "proj.layers.mlp.Mlp"),
    }


def test_inheritance_chain_across_files_makes_middle_an_nn_module(project: Project, facts: list[FileFacts]) -> None:
    assert _edges(project, "inherits") == {("proj.leaf.Leaf", "proj.middle.Middle"), ("proj.middle.Middle", "proj.base.Base")}
    middle_fact = next(c for f in facts for c in f.classes if c.qualname == "proj.middle.Middle")
    assert middle_fact.is_module is False  # the file alone cannot tell
    assert project.module("proj.middle.Middle").kind == "nn.Module"
    assert project.graph.nodes["proj.middle.Middle"]["module_kind"] == "nn.Module"


def test_contains_edges_nest_files_classes_and_methods(project: Project) -> None:
    contains = _edges(project, "contains")
    assert ("proj.blocks", "proj.blocks.Block") in contains
    assert ("proj.blocks.Block", "proj.blocks.Block.forward") in contains
    assert ("proj.ops", "proj.ops.host_check") in contains
    assert ("proj.blocks", "proj.blocks.Block.forward") not in contains


def test_unresolved_project_references_are_counted_not_guessed(project: Project) -> None:
    # `from .missing import nowhere` and `self.helper_built(x)` (set from a helper's return value).
    assert project.unresolved == 2
    assert not any(v.startswith("proj.missing") for _, v in project.graph.edges())


def test_traced_only_findings_kept_only_when_reachable(project: Project) -> None:
    by_symbol = {(f.code, f.symbol): f for f in project.findings}
    # host_check is called from Block.forward: kept, now traced
    kept = by_symbol[("ML102", "proj.ops.host_check")]
    assert (kept.context, kept.traced_only) == ("traced", False)
    # the hook callback is a traced entry
    assert by_symbol[("ML102", "proj.hooks.probe")].context == "traced"
    # nobody traced calls unused_check or train_step
    assert ("ML102", "proj.ops.unused_check") not in by_symbol
    assert ("ML102", "proj.train.check_loss") not in by_symbol
    assert project.dropped_traced_only == 2
    assert not any(f.traced_only for f in project.findings)
    assert project.findings == tuple(sorted(project.findings, key=lambda f: (f.path, f.span.line, f.span.column, f.code)))


def test_user_marked_traced_entry_keeps_what_it_reaches(facts: list[FileFacts], catalog: Catalog) -> None:
    project = build_project(facts, catalog, Config(traced_entries=("proj.train.train_step",)))
    kept = [f for f in project.findings if f.symbol == "proj.train.check_loss"]
    assert [(f.code, f.context, f.span.line) for f in kept] == [("ML102", "traced", 9)]
    assert "proj.train.check_loss" in project.traced
    assert project.module("proj.train").status == "redesign"


def test_statuses_and_explanation_paths(project: Project) -> None:
    got = {m.qualname: (m.kind, m.status, m.explanation) for m in project.modules}
    blocked_via = "custom-op ML401 at proj/ops.py:5"
    assert got == {
        "proj.base.Base": ("nn.Module", "mechanical", ("Base: device ML801 at proj/base.py:6",)),
        "proj.blocks.Block": ("nn.Module", "blocked", (f"Block -> Attention -> fused_attention: {blocked_via}",)),
        "proj.blocks.Stack": ("nn.Module", "blocked", (f"Stack -> Block -> Attention -> fused_attention: {blocked_via}",)),
        "proj.cyc_a": ("file", "pure", ()),
        "proj.cyc_b.B": ("nn.Module", "pure", ()),
        "proj.hooks": ("file", "redesign", ("proj.hooks -> probe: dynamic-control-flow ML102 at proj/hooks.py:6",)),
        "proj.hooks.Probed": ("nn.Module", "pure", ()),
        "proj.layers.attn.Attention": ("nn.Module", "blocked", (f"Attention -> fused_attention: {blocked_via}",)),
        # the info-severity ML901 finding (nn.GELU) never changes a status
        "proj.layers.mlp.Mlp": ("nn.Module", "pure", ()),
        "proj.leaf": ("file", "pure", ()),
        "proj.leaf.Leaf": ("nn.Module", "mechanical", ("Leaf -> Base: device ML801 at proj/base.py:6",)),
        "proj.middle.Middle": ("nn.Module", "mechanical", ("Middle -> Base: device ML801 at proj/base.py:6",)),
        "proj.ops": ("file", "blocked", (f"proj.ops -> fused_attention: {blocked_via}",)),
        "proj.train": ("file", "pure", ()),
        "tests.test_proj": ("file", "pure", ()),
    }
    mlp = project.module("proj.layers.mlp.Mlp")
    assert [f.code for f in mlp.findings] == ["ML901"] and mlp.pure


def test_unit_dependencies_skip_same_file_helpers(project: Project) -> None:
    deps = {m.qualname: m.depends_on for m in project.modules}
    assert deps["proj.blocks.Block"] == ("proj.layers.attn.Attention", "proj.layers.mlp.Mlp", "proj.ops")
    assert deps["proj.blocks.Stack"] == ("proj.blocks.Block",)
    # Leaf calls make_layer in its own file: the helper moves with the class, no edge to proj.leaf.
    assert deps["proj.leaf.Leaf"] == ("proj.base.Base", "proj.layers.mlp.Mlp", "proj.middle.Middle")
    # the cross-file cycle
    assert deps["proj.cyc_a"] == ("proj.cyc_b.B",) and deps["proj.cyc_b.B"] == ("proj.cyc_a",)
    assert project.module("tests.test_proj").is_test and not project.module("proj.ops").is_test


def test_worse_finding_downstream_wins_and_explains(facts: list[FileFacts], catalog: Catalog) -> None:
    # Give Mlp.forward a custom op: everything that composes or calls Mlp turns blocked with a path.
    from migrate_lens.models import Finding, Span

    extra = Finding(code="ML401", severity="critical", path="proj/layers/mlp.py", span=Span(13, 8, 13, 30),
                    symbol="proj.layers.mlp.Mlp.forward", context="traced", message="m", snippet="s")
    changed = [replace(f, findings=(*f.findings, extra)) if f.path == "proj/layers/mlp.py" else f for f in facts]
    project = build_project(changed, catalog, Config())
    leaf = project.module("proj.leaf.Leaf")
    assert leaf.status == "blocked"
    assert leaf.explanation == ("Leaf -> Mlp: custom-op ML401 at proj/layers/mlp.py:13",)
    assert project.module("tests.test_proj").status == "blocked"


def test_graph_view_is_sorted_and_matches_the_schema(project: Project) -> None:
    view = graph_view(project)
    schema = json.loads((REPO / "docs" / "report.schema.json").read_text(encoding="utf-8"))
    sub = {"$defs": schema["$defs"], **schema["properties"]["graph"]}
    jsonschema.validate(view, sub)
    ids = [n["id"] for n in view["nodes"]]
    assert ids == sorted(ids)
    keys = [(e["source"], e["target"], e["kind"]) for e in view["edges"]]
    assert keys == sorted(keys)
    node = next(n for n in view["nodes"] if n["id"] == "proj.blocks.Block")
    assert node == {"id": "proj.blocks.Block", "kind": "class", "status": "blocked", "path": "proj/blocks.py"}
    assert next(n for n in view["nodes"] if n["id"] == "torch") == {"id": "torch", "kind": "external", "status": None, "path": None}
    # Block.__init__ -> Attention is both a call; Block -> Attention a composition: distinct (source, target)
    parallel = [e for e in view["edges"] if (e["source"], e["target"]) == ("proj.blocks.Block", "proj.layers.attn.Attention")]
    assert [(e["kind"], e["key"]) for e in parallel] == [("composition", 0)]
    assert json.dumps(view, sort_keys=True) == json.dumps(graph_view(project), sort_keys=True)


def test_write_graphml_round_trips_scalar_attributes(project: Project, tmp_path: Path) -> None:
    out = tmp_path / "graph.graphml"
    write_graphml(project, out)
    back = nx.read_graphml(out)
    assert set(back.nodes) == set(project.graph.nodes)
    assert back.nodes["proj.ops.host_check"]["traced"] is True
    assert back.nodes["proj.blocks.Stack"]["status"] == "blocked"
    assert back.number_of_edges() == project.graph.number_of_edges()


def test_build_is_deterministic_regardless_of_input_order(facts: list[FileFacts], catalog: Catalog) -> None:
    a = build_project(facts, catalog, Config())
    b = build_project(list(reversed(facts)), catalog, Config())
    assert a.modules == b.modules and a.findings == b.findings
    assert graph_view(a) == graph_view(b)


def test_strongly_connected_orders_dependencies_first() -> None:
    adj = {"a": ["b"], "b": ["c"], "c": ["b", "d"], "d": []}
    assert strongly_connected(["a", "b", "c", "d"], adj) == [["d"], ["b", "c"], ["a"]]
    assert worst_reachable(["a", "b", "c", "d"], adj, {"d": 3, "a": 1}) == {"a": 3, "b": 3, "c": 3, "d": 3}
    assert worst_reachable(["a", "b", "c", "d"], {"a": ["b"]}, {"b": 2}) == {"a": 2, "b": 2, "c": 0, "d": 0}


@pytest.mark.parametrize(("path", "expected"), [
    ("tests/test_x.py", True), ("pkg/tests/helpers.py", True), ("test_model.py", True),
    ("pkg/model_test.py", True), ("conftest.py", True), ("pkg/latest.py", False), ("contest/x.py", False),
])
def test_is_test_path(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


def test_native_sources_become_file_units(facts: list[FileFacts], catalog: Catalog) -> None:
    # The pipeline turns a .cu/.cpp file into FileFacts(module="native:<path>") with host findings.
    from migrate_lens.models import Finding, Span

    native = FileFacts(path="csrc/attn.cu", module="native:csrc/attn.cu", sha256="", lines=120, findings=(
        Finding(code="ML401", severity="critical", path="csrc/attn.cu", span=Span(1, 0, 1, 0), symbol="csrc/attn.cu",
                context="host", message="m", snippet="csrc/attn.cu"),))
    project = build_project([*facts, native], catalog, Config())
    unit = project.module("native:csrc/attn.cu")
    assert (unit.kind, unit.status, unit.lines_of_code) == ("file", "blocked", 120)
    assert unit.explanation == ("native:csrc/attn.cu: custom-op ML401 at csrc/attn.cu:1",)


def test_a_class_needs_what_its_same_file_builder_helpers_build(tmp_path: Path) -> None:
    # open_clip's shape: CLIP.__init__ builds its tower through a same-file helper function;
    # the class does not depend on its own file's unit, but it needs the tower first.
    write_package(tmp_path, {
        "tower": "import torch.nn as nn\n\nclass Tower(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.fc = nn.Linear(2, 2)\n\n    def forward(self, x):\n        return self.fc(x)\n",
        "model": "import torch.nn as nn\nfrom pkg.tower import Tower\n\n\ndef _build_tower(cfg):\n    return Tower()\n\n\n"
                 "class Clip(nn.Module):\n    def __init__(self, cfg):\n        super().__init__()\n"
                 "        self.visual = _build_tower(cfg)\n\n    def forward(self, x):\n        return self.visual(x)\n",
    })
    catalog = fixture_catalog()
    project = build_project(analyze_tree(tmp_path, catalog), catalog, Config())
    assert project.module("pkg.model.Clip").depends_on == ("pkg.tower.Tower",)


def test_a_trace_only_hazard_in_host_generation_glue_does_not_make_a_redesign(tmp_path: Path) -> None:
    # open_clip's CoCa: one torch.multinomial in the host-side generate loop made the whole
    # model "redesign"; eagerly, a draw with an explicit PRNG key is a mechanical change.
    # Since stop 47 the same draw in forward (traced) is mechanical too (an nnx.Rngs stream),
    # not pure: it keeps its finding, in traced context.
    from migrate_lens.catalog import load_catalog

    write_package(tmp_path, {"gen": (
        "import torch\nimport torch.nn as nn\n\n\nclass Captioner(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.fc = nn.Linear(4, 4)\n\n    def forward(self, x):\n        return self.fc(x)\n\n"
        "    def generate(self, x, steps: int = 4):\n        out = []\n        for _ in range(steps):\n"
        "            probs = self(x).softmax(-1)\n            out.append(torch.multinomial(probs, 1))\n"
        "        return torch.cat(out, 1)\n\n\n"
        "class Sampler(nn.Module):\n    def forward(self, probs):\n        return torch.multinomial(probs, 1)\n")})
    catalog = load_catalog()
    files = analyze_tree(tmp_path, catalog)
    project = build_project(files, catalog, Config())
    assert {f.context for f in project.findings if f.code == "ML601"} == {"host", "traced"}
    assert project.module("pkg.gen.Captioner").status == "mechanical"
    assert project.module("pkg.gen.Sampler").status == "mechanical"



def test_a_data_dependent_shape_built_at_construction_does_not_make_a_redesign(tmp_path: Path) -> None:
    # openai-whisper's Whisper.__init__ stores its alignment-head mask as `all_heads.to_sparse()`
    # (ML215): __init__ runs once, eagerly, on concrete values, so the sparse or masked buffer is a
    # constant the port builds with NumPy (a dense mask). That one init finding made Whisper, the
    # package and every caller "redesign". The same op in forward (traced) stays a redesign.
    from migrate_lens.catalog import load_catalog

    write_package(tmp_path, {"heads": (
        "import torch\nimport torch.nn as nn\n\n\nclass Aligner(nn.Module):\n    def __init__(self, n: int):\n"
        "        super().__init__()\n        self.fc = nn.Linear(4, 4)\n        heads = torch.zeros(n, 4, dtype=torch.bool)\n"
        "        heads[n // 2 :] = True\n        self.register_buffer(\"heads\", heads.to_sparse(), persistent=False)\n"
        "        self.register_buffer(\"idx\", heads.nonzero(), persistent=False)\n\n"
        "    def forward(self, x):\n        return self.fc(x)\n\n\n"
        "class Sparse(nn.Module):\n    def forward(self, x):\n        return x.to_sparse()\n")})
    catalog = load_catalog()
    project = build_project(analyze_tree(tmp_path, catalog), catalog, Config())
    assert {(f.code, f.context) for f in project.findings if f.code in ("ML201", "ML215")} == {
        ("ML201", "init"), ("ML215", "init"), ("ML215", "traced")}
    assert project.module("pkg.heads.Aligner").status == "mechanical"
    assert project.module("pkg.heads.Sparse").status == "redesign"


_STEP = '''
import torch


def train_step(model, opt, x):
    loss = model(x).sum()
    loss.backward()
    opt.step()
    print("loss", loss)
    return loss


def test_grad_matches_reference(model, x):
    out = model(x).sum()
    out.backward()
    print("grad max diff", x.grad.abs().max())
'''


def test_a_test_that_calls_backward_is_no_training_step(tmp_path: Path) -> None:
    """A training step (loss, backward, optimizer step) is traced code; a pytest test that
    calls ``backward()`` to compare gradients is not (mamba_ssm's kernel tests were traced:
    343 findings in tests/ read as jitted code), in a test file or named ``test_*`` anywhere."""
    from migrate_lens.catalog import load_catalog

    catalog = load_catalog()
    write_package(tmp_path, {"train": _STEP})
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_model.py").write_text(_STEP.replace("def test_grad_matches_reference", "def check_grad"))
    project = build_project(analyze_tree(tmp_path, catalog), catalog, Config())
    ctx = {(f.path, f.symbol.rsplit(".", 1)[-1]): f.context for f in project.findings if f.code == "ML501"}
    assert ctx[("pkg/train.py", "train_step")] == "traced"
    assert ("pkg/train.py", "test_grad_matches_reference") not in ctx or ctx[("pkg/train.py", "test_grad_matches_reference")] != "traced"
    assert all(c != "traced" for (path, _), c in ctx.items() if path.startswith("tests/"))
    assert ("tests/test_model.py", "train_step") not in ctx or ctx[("tests/test_model.py", "train_step")] != "traced"


_DATASET_BASE = '''
from torch.utils.data import Dataset


class GraphDataset(Dataset):
    def __len__(self):
        return 10
'''
_DATASET = '''
import torch

from pkg.base import GraphDataset


class Flickr(GraphDataset):
    def process(self, y):
        idx = torch.nonzero(y > 0).view(-1)
        mask = torch.zeros(10, dtype=torch.bool)
        mask[idx] = True
        return y[mask].unique()

    def __getitem__(self, i):
        x = torch.randn(4)
        return x[x > 0]
'''


def test_methods_of_the_input_pipeline_are_host_code(tmp_path: Path) -> None:
    """A dataset (through a project base in another file, as PyG's datasets) runs in the data
    loader on the host: its data-dependent shapes are numpy's business, not a jit obstacle;
    in-place writes and global RNG stay findings, at host severity (PyG review: 6 of 40
    sampled findings had the traced reading in dataset ``process`` / sampler ``__getitem__``)."""
    from migrate_lens.catalog import load_catalog

    catalog = load_catalog()
    write_package(tmp_path, {"base": _DATASET_BASE, "data": _DATASET})
    project = build_project(analyze_tree(tmp_path, catalog), catalog, Config())
    got = {(f.code, f.span.line, f.context) for f in project.findings if f.path == "pkg/data.py"}
    assert got == {("ML304", 11, "host"), ("ML601", 15, "host")}


def test_project_packages_missing_from_the_tree_are_named(tmp_path: Path, catalog: Catalog) -> None:
    """Repro: flash-linear-attention 0.6.0 ships ``fla/layers`` and ``fla/models`` while its
    kernels, ``fla.ops`` and ``fla.modules``, come in another distribution (fla-core): 1,515 of
    its 3,226 project references were unresolved and the report said only that. The packages of
    the project's own namespace that the code imports and the tree lacks are now listed, most
    imported first, and the unknowns item names them; a name missing from a module that exists
    (``from .model import nothing``) is no missing package."""
    from migrate_lens.estimate import estimate

    write_package(tmp_path, {
        "model": "import torch.nn as nn\n\nfrom pkg.ops.gla import chunk_gla\nfrom pkg.ops import fused_recurrent\n"
                 "from .modules.norm import RMSNorm\n\n\nclass Layer(nn.Module):\n    def forward(self, q, k, v):\n"
                 "        return chunk_gla(q, k, v)\n",
        "other": "from .model import nothing\nfrom pkg.ops.delta import chunk_delta\n",
    })
    project = build_project(analyze_tree(tmp_path, catalog), catalog, Config())
    assert project.missing_modules == (("pkg.ops", 3), ("pkg.modules", 1))
    est = estimate(project, catalog, Config())
    unknowns = next(c for c in est.checklist if c.item == "unknowns")
    assert unknowns.status == "warn"
    risk = next(r for r in est.risk_components if r.name == "unknowns")
    assert risk.detail.endswith("; 2 modules of the project's namespace imported but not in the tree, so not "
                                "estimated: pkg.ops, pkg.modules"), risk.detail
    assert "2 modules of its own namespace that the tree does not hold: pkg.ops (3 imports), pkg.modules (1 import)" \
        in unknowns.detail


@pytest.mark.parametrize("script_tail", [
    # encodec 0.1.1: library modules end with `if __name__ == "__main__": demo()`
    'if __name__ == "__main__":\n    demo()\n    helper()\n',
    # mmpretrain review W2: a demo script's module-level `device = get_free_device()`
    "SEED = demo()\nSCALE = helper()\n",
])
def test_functions_script_code_calls_are_host_code(tmp_path: Path, catalog: Catalog, script_tail: str) -> None:
    """Repro (encodec 0.1.1, mmpretrain W2): ``demo``'s global-RNG draw was a medium finding in
    undecided context, as if a model called it. What a ``__main__`` block, or module-level code
    at import, calls is script code: host context, the rule's host severity; a function the
    model also reaches stays traced."""
    from migrate_lens.catalog import load_catalog

    real = load_catalog()
    write_package(tmp_path, {"blocks": (
        "import torch\nimport torch.nn as nn\n\n\nclass Gate(nn.Module):\n    def forward(self, x):\n"
        "        return x * helper()\n\n\ndef helper():\n    return torch.rand(1)\n\n\ndef demo():\n"
        "    x = torch.randn(4, 3)\n    print(Gate()(x))\n    return x\n\n\n" + script_tail)})
    project = build_project(analyze_tree(tmp_path, real), real, Config())
    got = {(f.symbol.rsplit(".", 1)[-1], f.code): (f.context, f.severity) for f in project.findings if f.code == "ML601"}
    assert got[("demo", "ML601")] == ("host", real.by_code()["ML601"].severity_in("host"))
    assert got[("helper", "ML601")][0] == "traced"


def test_module_level_data_names_resolve_also_when_assigned_under_a_branch(tmp_path: Path, catalog: Catalog) -> None:
    """Repro (fla 0.6.0): ``from fla.utils import IS_NPU, autotune_cache_kwargs`` and
    ``autocast_custom_fwd``, assigned under a device check as ``functools.partial(...)``, counted
    as unresolved project references (an inflated unknowns risk): a project module's data names,
    also those bound inside a top-level ``if``/``try``, are found."""
    write_package(tmp_path, {
        "hw": "import functools\nimport torch\n\nIS_NPU = False\nautotune_cache_kwargs = {'cache_results': True}\n"
              "if torch.cuda.is_available():\n    autocast_fwd = functools.partial(torch.amp.custom_fwd, device_type='cuda')\n"
              "else:\n    autocast_fwd = functools.partial(torch.amp.custom_fwd, device_type='cpu')\n"
              "try:\n    import triton\n    HAS_TRITON = True\nexcept ImportError:\n    HAS_TRITON = False\n",
        "ops": "import torch\n\nfrom .hw import HAS_TRITON, IS_NPU, autocast_fwd, autotune_cache_kwargs\n\n\n"
               "@autocast_fwd\ndef chunk(x: torch.Tensor) -> torch.Tensor:\n"
               "    return x * 2 if IS_NPU or HAS_TRITON else x.get(autotune_cache_kwargs)\n",
        "missing": "from .hw import NOT_THERE\n",
    })
    project = build_project(analyze_tree(tmp_path, catalog), catalog, Config())
    assert project.unresolved == 1  # NOT_THERE only
