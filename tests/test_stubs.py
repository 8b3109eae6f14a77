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
                   "tiny.mlp.Stack", "tiny.mlp.Unsupported", "tiny.resample.BnHead", "tiny.resample.PosEmbedResize",
                   "tiny.resample.UpDown"}
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
    assert [r["stub_path"] for r in rows] == ["tiny/convnet.py", "tiny/mlp.py", "tiny/resample.py"]
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


KIT = REPO / "fixtures" / "stubs" / "kit"


@pytest.fixture(scope="module")
def kit_stubs():
    """The timm-shaped fixture package, scanned as its own folder (``from kit import Mlp`` then
    names the root)."""
    root = KIT / "kit"
    return {f.stub_path: f for f in generate_stubs(root, discover_targets(root), api=ApiRenames())}


def test_todo_comments_in_the_file_are_the_counted_todos(fixture_stubs, kit_stubs):
    for f in [*fixture_stubs.values(), *kit_stubs.values()]:
        written = sum("# TODO(migrate-lens " in line for line in f.source.splitlines()[8:])
        assert written == len(f.todos), f.stub_path


def test_stubs_import_nothing_from_torch_or_the_scanned_package(kit_stubs):
    for f in kit_stubs.values():
        imports = [line for line in f.source.splitlines() if line.startswith(("import ", "from "))]
        assert not [i for i in imports if "torch" in i or i.startswith(("from kit", "import kit"))], f.stub_path
        assert f.compiles and f.placeholders == ()


def test_names_across_files_come_along(kit_stubs):
    model = kit_stubs["model.py"].source
    assert "from .layers import Attention" in model and "from .helpers import make_divisible" in model
    assert "@dataclass\nclass BlockConfig:" in model  # a plain class stays plain
    helpers = kit_stubs["helpers.py"].source  # a file with no nn.Module: its pure helpers
    assert "to_2tuple = _ntuple(2)" in helpers and "def make_divisible(" in helpers
    assert "_USE_FUSED = int(os.environ['KIT_FUSED_ATTN'])" in kit_stubs["config.py"].source


def test_rngs_reach_layers_built_through_kwargs_partials_and_parameters(kit_stubs):
    layers = kit_stubs["layers.py"].source
    assert "self.qkv = nn_Linear(dim, dim * 3, bias=qkv_bias, **dd, rngs=rngs)" in layers
    assert "linear_layer(in_features, hidden_features, bias=bias[0], **dd, **rngs_kw(linear_layer, rngs))" in layers
    assert ("self.mlp = mlp_layer(cfg.dim, hidden_features=cfg.dim * 2, drop=0.1, **rngs_kw(mlp_layer, rngs))"
            in kit_stubs["model.py"].source)  # a class default: checked at run time
    assert 'raise TypeError("nn.Linear built without rngs' in layers


def test_star_arg_methods_are_translated(kit_stubs):
    assert "jnp.swapaxes(x, 1, 2).reshape((*new_shape[:1], N, C))" in kit_stubs["layers.py"].source


def test_random_draws_take_keys_from_rngs(kit_stubs):
    layers = kit_stubs["layers.py"].source
    assert "jax.random.key(0)" not in layers
    assert "def drop_path(x, drop_prob: float = 0., training: bool = False, scale_by_keep: bool = True, *, rngs=None):" in layers
    assert "drop_path(x, self.drop_prob, (not self.deterministic), self.scale_by_keep, rngs=self.rngs)" in layers
    assert "torch_dropout(attn, self.attn_drop, (not self.deterministic), self.rngs, 'Attention.forward')" in layers


def test_subclass_of_a_torch_layer_keeps_its_parameters(kit_stubs):
    layers = kit_stubs["layers.py"].source
    assert "class LayerNorm2d(TorchLayerNorm):" in layers
    assert "super().__init__(num_channels, eps=eps, elementwise_affine=affine, rngs=rngs)" in layers


def test_star_args_of_unknown_tensor_methods_get_a_todo(tmp_path):
    (tmp_path / "a.py").write_text("import torch\nfrom torch import nn\nclass A(nn.Module):\n"
                                   "    def forward(self, x, idx):\n        return x.gather(*idx) + torch.nonzero(*idx)\n")
    f = generate_stubs(tmp_path, discover_targets(tmp_path), api=ApiRenames())[0]
    assert "Tensor.gather: star argument *idx" in f.source and "torch.nonzero: star argument *idx" in f.source
    assert sorted(t.code for t in f.todos) == ["ML091", "ML091", "ML093"]  # and the torch placeholder


def test_cli_says_a_stub_with_placeholders_cannot_run(tmp_path):
    from click.testing import CliRunner

    from migrate_lens.stubs.cli import stubs

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("from torch import nn\nfrom timm.layers import helper\n"
                                           "class A(nn.Module):\n    def forward(self, x):\n        return helper(x)\n")
    result = CliRunner().invoke(stubs, [str(tmp_path / "src"), "-o", str(tmp_path / "out"), "--discover"])
    assert result.exit_code == 0, result.output
    assert "m.py: 1 module(s), 1 TODO(s), CANNOT RUN AS IS: untranslated names helper" in result.output


def test_layer_factories_take_rngs_and_their_callers_pass_it(kit_stubs):
    create, model = kit_stubs["create.py"].source, kit_stubs["model.py"].source
    assert "def create_act_layer(name, inplace=None, *, rngs=None, **kwargs):" in create
    assert "return act_layer(**kwargs, **rngs_kw(act_layer, rngs))" in create  # class known only at run time
    assert "def create_conv(in_chs, out_chs, kernel_size, *, rngs=None, **kwargs):" in create
    assert "def _make_act(name, *, rngs=None):" in model  # calls an imported factory: a factory too
    assert "return create_act_layer(name, rngs=rngs)" in model
    assert "self.gate = create_act_layer(gate, rngs=rngs)" in model and "self.act = _make_act('relu', rngs=rngs)" in model
    assert "def get_act_layer(name):" in create  # returns a class, builds nothing: unchanged


def test_torch_function_values_and_version_checks_are_translated(kit_stubs):
    model = kit_stubs["model.py"]
    assert "partial((lambda _x, dim, dtype=None: jax.nn.softmax(" in model.source
    assert "int(TORCH_VERSION.split(\".\")[0]) >= 2" in model.source
    assert [m.todos for m in model.modules if m.class_name == "SEGate"] == [()]


def test_torch_named_packages_are_dropped_and_their_containers_translated(tmp_path):
    (tmp_path / "m.py").write_text(
        "import torch\nfrom torch import nn\nfrom torch_helpers.nn import Sequential, Identity\n"
        "from torch_helpers import masked_mean\n\n\nclass FF(nn.Module):\n"
        "    def __init__(self, dim, gate=False):\n        super().__init__()\n"
        "        self.ff = Sequential(nn.Linear(dim, dim), None if not gate else nn.GELU(), nn.Linear(dim, dim))\n"
        "        self.skip = Identity()\n\n    def forward(self, x):\n"
        "        from torch.nn.functional import gelu\n        return self.skip(self.ff(x))\n")
    [stub] = generate_stubs(tmp_path, discover_targets(tmp_path), api=ApiRenames())
    assert stub.compiles, stub.error
    assert "torch_helpers" not in "\n".join(line for line in stub.source.splitlines() if "import" in line)
    assert "self.ff = TorchSequential(nnx.Linear(" in stub.source and "self.skip = TorchIdentity()" in stub.source
    assert "from torch.nn.functional import gelu" in stub.source  # names in local imports are not rewritten


def test_factories_with_star_kwargs_and_imported_random_helpers(kit_stubs):
    model = kit_stubs["model.py"].source
    assert "self.cls_token = nnx.Param(torch_zeros(1, 1, dim, **dd))" in model  # PyTorch's signature, binds at run time
    assert "self.scale = nnx.Param(torch_ones(dim, **dd))" in model
    assert "trunc_normal_(self.cls_token[...], std=.02, rngs=self.rngs)" in model  # draws in another file: rngs passed
    assert "def trunc_normal_(tensor, mean=0., std=1., *, rngs=None):" in kit_stubs["create.py"].source


_MASKED = '''
import torch
from torch import nn


class Prompt(nn.Module):
    def __init__(self, d: int = 4):
        super().__init__()
        self.not_a_point = nn.Embedding(1, d)
        self.points = nn.ModuleList([nn.Embedding(1, d) for _ in range(2)])

    def forward(self, emb, labels):
        emb[labels == -1] = 0.0
        emb[labels == -1] += self.not_a_point.weight
        emb[labels == 0] += self.points[0].weight
        return emb
'''


def test_mask_scatters_and_listed_embeddings_translate_to_jit_safe_code(tmp_path):
    """``emb[labels == -1] = 0.0`` / ``+= w`` become ``masked_update`` (a ``jnp.where``, static
    shapes: ``.at[mask]`` raises under ``jax.jit``), and ``self.points[0].weight`` of a
    ``ModuleList`` of ``nn.Embedding`` is the ``nnx.Embed``'s ``embedding`` (segment-anything's
    PromptEncoder failed on ``.weight``; fresh-user trial). The helper matches PyTorch."""
    (tmp_path / "p.py").write_text(_MASKED)
    src = generate_stubs(tmp_path, discover_targets(tmp_path), api=ApiRenames())[0].source
    assert "emb = masked_update(emb, labels == -1, 0.0, 'set')" in src
    assert "masked_update(emb, labels == 0, (self.points[0].embedding), 'add')" in src
    assert ".weight" not in src.split("class Prompt", 1)[1]
    compile(src, "p.py", "exec")
    jnp = pytest.importorskip("jax.numpy")
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(src.split("\nclass Prompt", 1)[0], ns)  # the prelude: masked_update and its imports
    x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    labels = torch.tensor([[-1, 0, 1], [0, -1, -1]])
    w = torch.ones(1, 4) * 7
    want = x.clone()
    want[labels == -1] = 0.0
    want[labels == 0] += w
    got = ns["masked_update"](jnp.asarray(x.numpy()), jnp.asarray(labels.numpy()) == -1, 0.0, "set")
    got = ns["masked_update"](got, jnp.asarray(labels.numpy()) == 0, jnp.asarray(w.numpy()), "add")
    assert (abs(got - jnp.asarray(want.numpy())) < 1e-6).all()
