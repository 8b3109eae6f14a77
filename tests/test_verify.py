"""Parity tests: generated stubs against their PyTorch modules (imports and runs code: verify marker)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.verify

for _mod in ("torch", "jax", "flax"):
    if importlib.util.find_spec(_mod) is None:
        pytest.skip(f"{_mod} is not installed", allow_module_level=True)

from migrate_lens.stubs import discover_targets, generate_stubs  # noqa: E402
from migrate_lens.stubs.apimap import ApiRenames  # noqa: E402
from migrate_lens.stubs.verify import (  # noqa: E402
    InputSpec, compare, make_inputs, parse_input_spec, stub_todo_count, verify_target)

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "fixtures" / "stubs" / "src"


@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("stubs")
    generate_stubs(SRC, discover_targets(SRC), out, api=ApiRenames())
    return out


CASES = [
    ("tiny/mlp.py", "MLP", dict(dim=16, hidden=32), [InputSpec((2, 5, 16))]),
    ("tiny/mlp.py", "SelfAttention", dict(dim=16, heads=2), [InputSpec((2, 6, 16))]),
    ("tiny/mlp.py", "Stack", dict(dim=16), [InputSpec((2, 6, 16))]),
    ("tiny/convnet.py", "ConvNet", {}, [InputSpec((2, 3, 32, 32))]),
    ("tiny/convnet.py", "Embedder", {}, [InputSpec((2, 7), "int64", 0, 20)]),
]


@pytest.mark.parametrize(("path", "cls", "kwargs", "specs"), CASES, ids=[c[1] for c in CASES])
def test_fixture_stub_matches_pytorch(fixture_dir, path, cls, kwargs, specs):
    res = verify_target(SRC, fixture_dir, path, cls, kwargs=kwargs, inputs=make_inputs(specs, 1), tolerance=1e-5)
    assert res.status == "pass", res.reason
    assert res.runs and res.jit and res.max_abs_error <= 1e-5


def test_untranslatable_module_reports_error_with_reason(fixture_dir):
    res = verify_target(SRC, fixture_dir, "tiny/mlp.py", "Unsupported", inputs=make_inputs([InputSpec((2, 4))], 0))
    assert res.status == "error" and not res.runs
    assert res.reason == "run stub: NotImplementedError: torch.nonzero is not translated (see the TODO(migrate-lens) above its placeholder)"


def test_compare_reports_shape_mismatch():
    import jax.numpy as jnp
    import torch

    abs_err, _, why = compare(torch.zeros(2, 3), jnp.zeros((3, 2)))
    assert why == "output 0: shape PyTorch (2, 3), stub (3, 2)" and abs_err == float("inf")


def test_parse_input_spec():
    assert parse_input_spec("2x3x8x8") == InputSpec((2, 3, 8, 8))
    assert parse_input_spec("2x8:int64:0:99") == InputSpec((2, 8), "int64", 0, 99)
    with pytest.raises(ValueError):
        parse_input_spec("2,3")


@pytest.fixture(scope="module")
def sam_root(tmp_path_factory):
    """A tree holding segment-anything 1.0's source: the installed package (the `verify` extra
    pins segment-anything==1.0) copied without importing it."""
    import importlib.util
    import shutil

    spec = importlib.util.find_spec("segment_anything")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("segment-anything is not installed (the verify extra pins segment-anything==1.0)")
    root = tmp_path_factory.mktemp("samsrc")
    shutil.copytree(Path(list(spec.submodule_search_locations)[0]), root / "segment_anything",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture(scope="module")
def sam_dir(tmp_path_factory, sam_root):
    out = tmp_path_factory.mktemp("sam")
    targets = [t for t in discover_targets(sam_root)
               if t.path in ("segment_anything/modeling/image_encoder.py", "segment_anything/modeling/common.py")]
    generate_stubs(sam_root, targets, out)
    return out


SAM_CASES = [
    ("ImageEncoderViT", dict(img_size=64, patch_size=16, embed_dim=32, depth=2, num_heads=2, out_chans=16,
                             window_size=2, global_attn_indexes=(1,)), (2, 3, 64, 64)),
    ("Block", dict(dim=32, num_heads=2, window_size=3, use_rel_pos=True, rel_pos_zero_init=False,
                   input_size=(4, 4)), (2, 4, 4, 32)),
    ("Block", dict(dim=32, num_heads=2, window_size=0, input_size=(4, 4)), (2, 4, 4, 32)),
    ("PatchEmbed", dict(in_chans=3, embed_dim=32), (2, 3, 32, 32)),
]


@pytest.mark.parametrize(("cls", "kwargs", "shape"), SAM_CASES,
                         ids=["encoder", "block-window-relpos", "block-global", "patch-embed"])
def test_segment_anything_encoder_parity(sam_root, sam_dir, cls, kwargs, shape):
    res = verify_target(sam_root, sam_dir, "segment_anything/modeling/image_encoder.py", cls, kwargs=kwargs,
                        inputs=make_inputs([InputSpec(shape)], 0), tolerance=1e-5)
    if res.status == "error" and res.reason.startswith("import PyTorch module"):
        pytest.skip(f"segment-anything not importable: {res.reason}")
    assert res.status == "pass", res.reason
    assert res.max_abs_error <= 1e-5 and res.jit


KIT = REPO / "fixtures" / "stubs" / "kit"


@pytest.fixture(scope="module")
def kit_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("kit")
    generate_stubs(KIT, discover_targets(KIT), out, api=ApiRenames())
    return out


@pytest.fixture()
def kit_path(monkeypatch):
    monkeypatch.syspath_prepend(str(KIT))


KIT_CASES = [
    ("kit/layers.py", "Mlp", dict(in_features=16, hidden_features=32), (2, 5, 16)),
    ("kit/layers.py", "Attention", dict(dim=16, num_heads=2, qkv_bias=True), (2, 5, 16)),
    ("kit/layers.py", "LayerNorm2d", dict(num_channels=8), (2, 8, 4, 4)),
    ("kit/layers.py", "DropPath", dict(drop_prob=0.3), (2, 5, 16)),
    ("kit/model.py", "ConvBn", dict(cin=3, cout=8), (2, 3, 8, 8)),
    ("kit/model.py", "SEGate", dict(channels=8), (2, 8, 4, 4)),  # layers built by factories in other files
    ("kit/model.py", "TokenHead", dict(dim=16), (2, 5, 16)),  # torch.zeros(**dd), init by an imported random helper
]


@pytest.mark.parametrize(("path", "cls", "kwargs", "shape"), KIT_CASES, ids=[c[1] for c in KIT_CASES])
def test_kit_stub_matches_pytorch(kit_dir, kit_path, path, cls, kwargs, shape):
    res = verify_target(KIT, kit_dir, path, cls, kwargs=kwargs, inputs=make_inputs([InputSpec(shape)], 0),
                        tolerance=1e-5)
    assert res.status == "pass", res.reason
    assert res.jit and res.max_abs_error <= 1e-5


def test_kit_block_with_config_object_matches(kit_dir, kit_path):
    import importlib

    cfg = importlib.import_module("kit.model").BlockConfig(dim=16, heads=2)
    res = verify_target(KIT, kit_dir, "kit/model.py", "Block", args=(cfg,), inputs=make_inputs([InputSpec((2, 5, 16))], 0),
                        tolerance=1e-5)
    assert res.status == "pass", res.reason


def test_training_mode_draws_fresh_masks_from_rngs(kit_dir):
    import jax.numpy as jnp
    from flax import nnx

    from migrate_lens.stubs.verify import load_stub_module

    layers = load_stub_module(kit_dir, "kit/layers.py")
    drop = layers.DropPath(0.5, rngs=nnx.Rngs(0))
    x = jnp.ones((64, 3))
    a, b = drop(x), drop(x)
    assert not bool(jnp.all(a == b))  # a fresh key per call, not a fixed one
    assert set(jnp.unique(a).tolist()) <= {0.0, 2.0}
    drop.eval()
    assert bool(jnp.all(drop(x) == x))


def test_convert_state_dict_copies_weights(kit_dir):
    import numpy as np
    import torch
    from flax import nnx

    from migrate_lens.stubs.verify import load_stub_module

    layers = load_stub_module(kit_dir, "kit/layers.py")
    stub = layers.Mlp(4, hidden_features=8, rngs=nnx.Rngs(0))
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 4))
    state = {"fc1.weight": tm[0].weight, "fc1.bias": tm[0].bias, "fc2.weight": tm[1].weight, "fc2.bias": tm[1].bias}
    layers.convert_state_dict(stub, {k: v.detach().numpy() for k, v in state.items()})
    before = np.asarray(stub.fc1.bias[...]).copy()
    with torch.no_grad():
        tm[0].bias.add_(100.0)  # the live tensor changes; the stub must not
    assert np.array_equal(np.asarray(stub.fc1.bias[...]), before)


def test_converter_names_the_key_the_stub_expects(kit_dir):
    import numpy as np
    from flax import nnx

    from migrate_lens.stubs.verify import load_stub_module

    layers = load_stub_module(kit_dir, "kit/layers.py")
    stub = layers.Mlp(4, hidden_features=8, rngs=nnx.Rngs(0))
    state = {"fc1.weight": np.zeros((8, 4), np.float32), "fc1.bias": np.zeros(8, np.float32),
             "fc3.weight": np.zeros((4, 8), np.float32), "fc3.bias": np.zeros(4, np.float32)}
    with pytest.raises(ValueError, match="the stub expects 'fc2.bias'; the checkpoint has 'fc3.bias'"):
        layers.convert_state_dict(stub, state)


def test_verify_command_takes_a_recipe_and_reports_the_files_todos(kit_dir, kit_path, tmp_path):
    import json

    from click.testing import CliRunner

    from migrate_lens.stubs.cli import verify

    recipe = tmp_path / "recipe.py"
    recipe.write_text("import numpy as np\nfrom kit.model import BlockConfig\n\n\ndef build():\n"
                      "    return {'args': (BlockConfig(dim=16, heads=2),),\n"
                      "            'inputs': [np.random.default_rng(0).standard_normal((2, 5, 16)).astype('float32')]}\n")
    result = CliRunner().invoke(verify, [str(KIT), "--stubs", str(kit_dir), "--module", "kit.model.Block", "--recipe",
                                         str(recipe), "--tolerance", "1e-5", "--yes"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output[result.output.index("{"):])
    assert out["status"] == "pass" and out["jit"]
    sam = (kit_dir / "kit" / "layers.py").read_text()
    assert stub_todo_count(sam, "Attention") == 1  # the scaled_dot_product_attention dropout TODO


def test_verify_config_option_builds_the_config_object(kit_path):
    from migrate_lens.stubs.cli import _build_config

    cfg = _build_config('kit.model:BlockConfig={"dim": 8, "heads": 4}')
    assert (cfg.dim, cfg.heads) == (8, 4)


# ----------------------------------------------------------------- training step, bf16, resampling
def _bn_torch_step(x, momentum=0.1):
    import torch

    bn = torch.nn.BatchNorm1d(x.shape[1], momentum=momentum).train()
    with torch.no_grad():
        y = bn(torch.from_numpy(x))
    return bn, y.numpy()


def test_batchnorm_running_var_after_a_training_step_matches_pytorch(fixture_dir):
    import numpy as np
    from flax import nnx

    from migrate_lens.stubs.verify import load_stub_module

    stub_mod = load_stub_module(fixture_dir, "tiny/resample.py")
    x = np.random.default_rng(3).standard_normal((5, 8)).astype("float32") * 2 + 1
    bn, y = _bn_torch_step(x)
    stub = stub_mod.TorchBatchNorm(8, axis=1, momentum=0.9, epsilon=1e-5, rngs=nnx.Rngs(0))
    got = np.asarray(stub(x))
    assert np.abs(got - y).max() <= 1e-5
    assert np.abs(np.asarray(stub.var[...]) - bn.running_var.numpy()).max() <= 1e-6  # unbiased n/(n-1) update
    assert np.abs(np.asarray(stub.mean[...]) - bn.running_mean.numpy()).max() <= 1e-6
    plain = nnx.BatchNorm(8, axis=1, momentum=0.9, epsilon=1e-5, rngs=nnx.Rngs(0))
    plain(x)  # flax's own update: the biased variance, what the stub must not do
    assert np.abs(np.asarray(plain.var[...]) - bn.running_var.numpy()).max() > 1e-3


TRAIN_CASES = [
    ("tiny/resample.py", "BnHead", dict(p=0.0), (6, 8), False),
    ("tiny/convnet.py", "ConvNet", {}, (4, 3, 16, 16), False),
    ("tiny/resample.py", "BnHead", dict(p=0.5), (6, 8), True),
    # a rare draw: two calls often keep every element (0.95**16 per call), so one repeat is no
    # evidence of a frozen key (the bench's DropPath(0.1) on a batch of 2 failed that way)
    ("tiny/resample.py", "BnHead", dict(p=0.05), (2, 8), True),
]


@pytest.mark.parametrize(("path", "cls", "kwargs", "shape", "random"), TRAIN_CASES,
                         ids=[f"{c[1]}-{'random' if c[4] else 'deterministic'}" for c in TRAIN_CASES])
def test_training_step_check(fixture_dir, path, cls, kwargs, shape, random):
    res = verify_target(SRC, fixture_dir, path, cls, kwargs=kwargs, inputs=make_inputs([InputSpec(shape)], 0),
                        tolerance=1e-5, train=True)
    assert res.status == "pass" and res.passed, (res.reason, res.train)
    t = res.train
    assert t["status"] == "pass" and t["random"] is random
    if random:  # dropout: fresh masks per call, eagerly and under nnx.jit
        assert t["draws_differ"] and t["jit_draws_differ"]
    else:  # BatchNorm with batch statistics: output and running_mean/running_var agree after one step
        assert not t["draws_differ"] and t["max_abs_error"] <= 1e-5
        assert t["stats_compared"] == 2 and t["stats_max_abs_error"] <= 1e-6


def test_training_step_check_fails_on_biased_running_var_and_on_frozen_draws(fixture_dir, monkeypatch):
    from flax import nnx

    from migrate_lens.stubs.verify import load_stub_module

    stub_mod = load_stub_module(fixture_dir, "tiny/resample.py")
    monkeypatch.setattr(stub_mod.TorchBatchNorm, "__call__", nnx.BatchNorm.__call__)  # flax's biased update
    res = verify_target(SRC, fixture_dir, "tiny/resample.py", "BnHead", kwargs=dict(p=0.0),
                        inputs=make_inputs([InputSpec((6, 8))], 0), tolerance=1e-5, train=True)
    assert res.status == "pass" and res.train["status"] == "fail" and not res.passed
    assert "buffers after one step" in res.train["reason"]
    monkeypatch.undo()

    def frozen(self, x, deterministic=None, rngs=None, **kwargs):  # the traced-draw trap: one key forever
        import jax

        keep = jax.random.bernoulli(jax.random.key(0), 1 - self.rate, x.shape)
        return jax.numpy.where(keep, x / (1 - self.rate), 0) if not self.deterministic else x

    monkeypatch.setattr(nnx.Dropout, "__call__", frozen)
    res = verify_target(SRC, fixture_dir, "tiny/resample.py", "BnHead", kwargs=dict(p=0.5),
                        inputs=make_inputs([InputSpec((6, 8))], 0), tolerance=1e-5, train=True)
    assert res.train["status"] == "fail" and "same on every call" in res.train["reason"]


def test_bf16_run_is_reported_separately_with_a_bf16_tolerance(fixture_dir):
    res = verify_target(SRC, fixture_dir, "tiny/convnet.py", "ConvNet", inputs=make_inputs([InputSpec((2, 3, 16, 16))], 0),
                        tolerance=1e-5, bf16=True)
    b = res.bf16
    assert res.status == "pass" and res.train is None
    assert b["status"] == "pass" and b["output_dtypes"] == ["bfloat16"]
    assert 1e-5 < b["max_rel_error"] <= b["tolerance"]  # bf16 is not float32-exact, but within bf16 rounding
    assert b["torch_max_rel_error"] is not None and b["tolerance"] >= 2 * b["torch_max_rel_error"]


def test_bf16_run_fails_when_the_stub_is_wrong_beyond_bf16_rounding(fixture_dir, monkeypatch):
    from migrate_lens.stubs.verify import load_stub_module

    stub_mod = load_stub_module(fixture_dir, "tiny/resample.py")
    real = stub_mod.TorchBatchNorm.__call__
    monkeypatch.setattr(stub_mod.TorchBatchNorm, "__call__", lambda self, x, *a, **k: real(self, x, *a, **k) * 1.1)
    res = verify_target(SRC, fixture_dir, "tiny/resample.py", "BnHead", kwargs=dict(p=0.0),
                        inputs=make_inputs([InputSpec((6, 8))], 0), tolerance=1e-5, bf16=True)
    assert res.status == "fail" and res.bf16["status"] == "fail" and "bfloat16 max rel error" in res.bf16["reason"]


def test_torch_state_dict_inverts_convert_state_dict(fixture_dir):
    import numpy as np
    import torch
    from flax import nnx

    from migrate_lens.stubs.verify import load_stub_module

    stub_mod = load_stub_module(fixture_dir, "tiny/convnet.py")
    spec = importlib.util.spec_from_file_location("_fixture_convnet", SRC / "tiny" / "convnet.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    tm = mod.ConvNet()
    sd = {k: v.detach().numpy() for k, v in tm.state_dict().items()}
    stub = stub_mod.ConvNet(rngs=nnx.Rngs(0))
    stub_mod.convert_state_dict(stub, sd)
    back = stub_mod.torch_state_dict(stub)
    assert set(back) == {k for k in sd if not k.endswith("num_batches_tracked")}
    assert all(np.array_equal(back[k], sd[k]) for k in back)
    torch.nn.Module.load_state_dict(tm, {k: torch.from_numpy(np.array(v)) for k, v in back.items()}, strict=False)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("mode", ["bicubic", "bilinear"])
@pytest.mark.parametrize(("src", "dst"), [((7, 7), (14, 14)), ((7, 9), (5, 4)), ((14, 14), (9, 23)), ((4, 4), (1, 1)),
                                          ((3, 3), (10, 7))], ids=["up2", "down", "mixed", "to1", "up-odd"])
def test_interpolate_is_pytorch_exact(fixture_dir, mode, align_corners, src, dst):
    import numpy as np
    import torch
    import torch.nn.functional as F

    from migrate_lens.stubs.verify import load_stub_module

    interp = load_stub_module(fixture_dir, "tiny/resample.py").torch_interpolate
    x = np.random.default_rng(0).standard_normal((2, 3, *src)).astype("float32")
    for antialias in (False, True):
        ref = F.interpolate(torch.from_numpy(x), size=dst, mode=mode, align_corners=align_corners,
                            antialias=antialias).numpy()
        got = np.asarray(interp(x, size=dst, mode=mode, align_corners=align_corners, antialias=antialias))
        assert np.abs(got - ref).max() <= 1e-5, antialias
    for factor in (2, 1.7, 0.6):  # PyTorch maps coordinates with 1/scale_factor, not in/out
        ref = F.interpolate(torch.from_numpy(x), scale_factor=factor, mode=mode, align_corners=align_corners).numpy()
        got = np.asarray(interp(x, scale_factor=factor, mode=mode, align_corners=align_corners))
        assert got.shape == ref.shape and np.abs(got - ref).max() <= 1e-5, factor


def test_interpolate_nearest_and_jax_cubic_is_not_pytorch_bicubic(fixture_dir):
    import jax
    import numpy as np
    import torch
    import torch.nn.functional as F

    from migrate_lens.stubs.verify import load_stub_module

    interp = load_stub_module(fixture_dir, "tiny/resample.py").torch_interpolate
    x = np.random.default_rng(1).standard_normal((1, 2, 9, 11)).astype("float32")
    for mode in ("nearest", "nearest-exact"):
        for factor in (2, 0.6, 1.7):
            ref = F.interpolate(torch.from_numpy(x), scale_factor=factor, mode=mode).numpy()
            assert np.array_equal(np.asarray(interp(x, scale_factor=factor, mode=mode)), ref), (mode, factor)
    ref = F.interpolate(torch.from_numpy(x), size=(14, 14), mode="bicubic").numpy()
    jax_cubic = np.asarray(jax.image.resize(x, (1, 2, 14, 14), "cubic"))
    assert np.abs(jax_cubic - ref).max() > 1e-2  # why the stub does not use jax.image.resize


RESAMPLE_CASES = [
    ("PosEmbedResize", {}, (2, 49, 8)),  # ViT interpolate_pos_encoding: 4x4 grid -> 7x7, bicubic
    ("PosEmbedResize", dict(align_corners=True), (2, 9, 8)),
    ("UpDown", {}, (2, 4, 6, 6)),  # nn.Upsample bilinear align_corners, nearest, bicubic down, antialias
]


@pytest.mark.parametrize(("cls", "kwargs", "shape"), RESAMPLE_CASES, ids=["pos-bicubic", "pos-aligned", "updown"])
def test_resampling_modules_match_pytorch(fixture_dir, cls, kwargs, shape):
    res = verify_target(SRC, fixture_dir, "tiny/resample.py", cls, kwargs=kwargs,
                        inputs=make_inputs([InputSpec(shape)], 0), tolerance=1e-5)
    assert res.status == "pass" and res.jit, res.reason
    assert res.todos == 0
