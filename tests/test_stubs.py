"""Stub translation tests (no torch/JAX needed): targets, golden snapshots, compile checks, TODOs.

Golden files live in fixtures/stubs/golden/; regenerate them with
``MIGRATE_LENS_UPDATE_GOLDEN=1 pytest tests/test_stubs.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from migrate_lens.stubs import StubTarget, discover_targets, generate_stubs, select_targets
from migrate_lens.stubs.targets import not_selected
from migrate_lens.stubs.apimap import ApiRenames, parse_renames
from migrate_lens.stubs.tables import Unbindable, bind

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "fixtures" / "stubs" / "src"
GOLDEN = REPO / "fixtures" / "stubs" / "golden"
UPDATE = os.environ.get("MIGRATE_LENS_UPDATE_GOLDEN") == "1"
#: Trees whose every stub must compile: the shipped fixtures always, plus any folders named in
#: MIGRATE_LENS_CORPUS (os.pathsep-separated; e.g. a checkout of real PyTorch projects).
CORPORA = [REPO / "fixtures" / "stubs" / "src", REPO / "fixtures" / "projects" / "layered", REPO / "fixtures" / "cases",
           *(Path(p) for p in os.environ.get("MIGRATE_LENS_CORPUS", "").split(os.pathsep) if p)]


@pytest.fixture(scope="module")
def fixture_stubs():
    return {f.stub_path: f for f in generate_stubs(SRC, discover_targets(SRC), api=ApiRenames())}


def test_discover_targets_finds_every_module_subclass():
    got = {t.qualname for t in discover_targets(SRC)}
    assert got == {"tiny.convnet.ConvNet", "tiny.convnet.Embedder", "tiny.mlp.MLP", "tiny.mlp.SelfAttention",
                   "tiny.mlp.Stack", "tiny.mlp.Unsupported"}
    assert all(t.status == "unknown" for t in discover_targets(SRC))


def test_discover_follows_project_and_known_third_party_bases(tmp_path):
    (tmp_path / "m.py").write_text(
        "from torch.nn import Module\nfrom ...modeling_utils import PreTrainedModel\n"
        "class A(Module): pass\nclass B(A): pass\nclass C(PreTrainedModel): pass\nclass D(object): pass\n")
    assert [t.class_name for t in discover_targets(tmp_path)] == ["A", "B", "C"]


def test_select_targets_translates_redesign_and_lists_blocked_with_reason():
    report = {"modules": [
        {"qualname": "p.b.B", "path": "p/b.py", "kind": "nn.Module", "status": "mechanical"},
        {"qualname": "p.a.A", "path": "p/a.py", "kind": "nn.Module", "status": "pure"},
        {"qualname": "p.a.R", "path": "p/a.py", "kind": "nn.Module", "status": "redesign",
         "explanation": ["R -> drop_path: rng ML608 at p/a.py:3"]},
        {"qualname": "p.a.X", "path": "p/a.py", "kind": "nn.Module", "status": "blocked",
         "explanation": ["X: custom-op ML410 at p/a.py:9"]},
        {"qualname": "p.a.F", "path": "p/a.py", "kind": "autograd.Function", "status": "pure"},
        {"qualname": "p.a", "path": "p/a.py", "kind": "file", "status": "pure"},
    ]}
    assert select_targets(report) == [StubTarget("p/a.py", "p.a.A", "pure"),
                                      StubTarget("p/a.py", "p.a.R", "redesign", "R -> drop_path: rng ML608 at p/a.py:3"),
                                      StubTarget("p/b.py", "p.b.B", "mechanical")]
    assert not_selected(report) == [StubTarget("p/a.py", "p.a.X", "blocked", "X: custom-op ML410 at p/a.py:9")]


@pytest.mark.parametrize("name", ["tiny/mlp.py", "tiny/convnet.py"])
def test_golden_stub(fixture_stubs, name):
    got = fixture_stubs[name].source
    golden = GOLDEN / name
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert golden.exists(), f"missing golden {golden}; run with MIGRATE_LENS_UPDATE_GOLDEN=1"
    assert got == golden.read_text(encoding="utf-8")


def test_fixture_stubs_compile_and_count_todos_per_module(fixture_stubs):
    for f in fixture_stubs.values():
        compile(f.source, f.stub_path, "exec")
        assert f.compiles and f.error == ""
    todos = {m.class_name: [t.code for t in m.todos] for f in fixture_stubs.values() for m in f.modules}
    assert todos["MLP"] == [] and todos["ConvNet"] == [] and todos["Embedder"] == [] and todos["SelfAttention"] == []
    assert sorted(todos["Unsupported"]) == ["ML091", "ML093"]  # torch.nonzero, and the `torch` placeholder


def test_layers_make_pytorch_defaults_explicit(fixture_stubs):
    conv = fixture_stubs["tiny/convnet.py"].source
    assert "padding=[(3, 3), (3, 3)]" in conv and "strides=(2, 2)" in conv  # never 'SAME' for stride 2
    assert "momentum=0.8" in conv  # PyTorch momentum 0.2 -> Flax 1 - 0.2
    assert "feature_group_count=width" in conv
    assert "padding=[(1, 2), (1, 2)], kernel_dilation=(1, 1), use_bias=True, transpose_kernel=True" in conv
    assert "jnp.std(self.emb.embedding, ddof=1)" in conv  # Embedding.weight -> embedding; unbiased std
    mlp = fixture_stubs["tiny/mlp.py"].source
    assert "nnx.LayerNorm(dim, epsilon=eps" in mlp
    assert "gelu_exact" in mlp and "approximate=False" in mlp
    assert "def __call__(self, x):" in mlp and "def forward" not in mlp
    assert "jnp.where(~self.causal[:n, :n], float(\"-inf\"), att)" in mlp
    assert "x = x.at[:, 0].add((1.0))" in mlp
    assert "if (not self.deterministic):" in mlp


def test_untranslated_call_is_left_visible_with_todo(fixture_stubs):
    src = fixture_stubs["tiny/mlp.py"].source
    lines = src.splitlines()
    i = next(n for n, line in enumerate(lines) if "torch.nonzero(x > 0)" in line)
    assert lines[i - 1].strip().startswith("# TODO(migrate-lens ML091): torch.nonzero has no translation")


def test_bind_follows_pytorch_argument_order():
    b = bind(("dim", "keepdim"), [(None, "1"), ("keepdim", "True")], False)
    assert b.values == {"dim": "1", "keepdim": "True"}
    v = bind(("shape",), [(None, "b"), (None, "n"), (None, "-1")], True)
    assert v.varargs("shape") == "(b, n, -1)"
    with pytest.raises(Unbindable):
        bind(("dim",), [("axis", "1")], False)


def test_api_map_renames_parse():
    assert parse_renames("dim->axis, keepdim->keepdims") == {"dim": "axis", "keepdim": "keepdims"}
    assert parse_renames("") == {}
    assert parse_renames("approximate='none' becomes False") is None


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda p: p.name)
def test_every_corpus_stub_compiles(corpus):
    """Every stub generated for the tree compiles (a large real tree takes minutes: about 2 s
    per file with modules)."""
    if not corpus.is_dir():
        pytest.skip(f"MIGRATE_LENS_CORPUS names a folder that does not exist ({corpus.name})")
    files = generate_stubs(corpus, discover_targets(corpus))
    assert files, "no stubs generated"
    bad = [(f.stub_path, f.error) for f in files if f.source and not f.compiles]
    for f in files:
        if f.source:
            compile(f.source, f.stub_path, "exec")
    assert bad == []


def test_stubs_command_writes_files_and_reports_json(tmp_path):
    import json

    from click.testing import CliRunner

    from migrate_lens.stubs.cli import stubs

    result = CliRunner().invoke(stubs, [str(SRC), "-o", str(tmp_path), "--discover", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["files"]
    assert [r["stub_path"] for r in rows] == ["tiny/convnet.py", "tiny/mlp.py"]
    assert all(r["compiles"] for r in rows)
    assert (tmp_path / "tiny" / "mlp.py").is_file() and (tmp_path / "tiny" / "__init__.py").is_file()


def test_stubs_command_reads_report(tmp_path):
    import json

    from click.testing import CliRunner

    from migrate_lens.stubs.cli import stubs

    report = tmp_path / "report.json"
    report.write_text(json.dumps({"modules": [
        {"qualname": "tiny.mlp.MLP", "path": "tiny/mlp.py", "kind": "nn.Module", "status": "pure"},
        {"qualname": "tiny.mlp.Unsupported", "path": "tiny/mlp.py", "kind": "nn.Module", "status": "blocked"}]}))
    out = tmp_path / "out"
    result = CliRunner().invoke(stubs, [str(SRC), "-o", str(out), "--report", str(report)])
    assert result.exit_code == 0, result.output
    text = (out / "tiny" / "mlp.py").read_text()
    assert "class MLP(nnx.Module):" in text and "class Unsupported" not in text


def test_tensor_methods_use_api_map_renames_or_todo(tmp_path):
    from migrate_lens.catalog import ApiEntry

    (tmp_path / "a.py").write_text("import torch\nfrom torch import nn\nclass A(nn.Module):\n"
                                   "    def forward(self, x):\n        return x.acos() + x.addmm(x, x)\n")
    api = ApiRenames({"Tensor.acos": ApiEntry("Tensor.acos", "jnp.arccos", "DIRECT", "", ""),
                      "Tensor.addmm": ApiEntry("Tensor.addmm", "jnp.matmul", "ARG_CHANGE",
                                               "beta*input + alpha*(mat1 @ mat2)", "write the affine form out")})
    src = generate_stubs(tmp_path, discover_targets(tmp_path), api=api)[0].source
    assert ("        # TODO(migrate-lens ML091): Tensor.addmm: API map: ARG_CHANGE -> jnp.matmul: write the affine "
            "form out\n        return jnp.arccos(x) + x.addmm(x, x)\n") in src
